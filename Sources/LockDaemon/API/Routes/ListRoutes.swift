import LockCore
import LockProtocol

/// Importing, showing and removing blocklists.
struct ListRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let lists = core.lists
        let coordinator = core.coordinator
        let sessions = core.sessions
        let profiles = core.profiles
        @Sendable func info(_ list: Blocklist) async -> ListInfo {
            ListInfo(list, profiles: await profiles.users(ofList: list.reference.name), sessions: await sessions.active)
        }
        router.add(Endpoints.lists) { _ in
            var infos: [ListInfo] = []
            for list in lists.all() { infos.append(await info(list)) }
            return ListList(lists: infos, problems: await lists.problems.map(\.description))
        }
        router.add(Endpoints.list) { context throws(APIError) in
            let name = context.parameter("name")
            let list = try context.errors.run { () throws(ListError) in try lists.list(name) }
            return await info(list)
        }
        router.addStreaming(Endpoints.importList) { context throws(APIError) in
            let name = context.parameter("name")
            let body = context.body
            let received = try await context.call { () async throws(ListError) -> Blocklist in
                try await lists.receive(name, source: context.query.text("source") ?? "-") { () async throws(ListError) -> [UInt8]? in
                    do throws(APIError) { return try await body.next() } catch {
                        if error.code == .tooLarge { throw .bodyTooLarge(limit: API.maxListBodyBytes) }
                        throw .transfer(error.message)
                    }
                }
            }
            let previous = lists.library.current(name)
            let updated = try await context.call { () async throws(ListError) in try await coordinator.importList(received) }
            let current = (try? lists.list(name)) ?? received
            return ListImport(list: await info(current), updatedSessions: updated.map(\.id), unchanged: previous == received.reference)
        }
        router.add(Endpoints.deleteList) { context throws(APIError) in
            let name = context.parameter("name")
            try await context.call { () async throws(ListError) in try await coordinator.removeList(name) }
            return Deleted(deleted: name)
        }
    }
}
