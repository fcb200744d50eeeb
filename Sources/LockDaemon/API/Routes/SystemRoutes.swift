import Foundation
import LockCore
import LockPlatform
import LockProtocol

/// Status, check, history, doctor, reload and the event stream.
struct SystemRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let reporter = core.reporter
        let coordinator = core.coordinator
        let events = core.events
        let names = core.names
        let allowances = core.allowances
        router.add(Endpoints.status) { _ in
            var status = StatusResponse(await reporter.status())
            status.allowances = await allowances.list().map(TimeAllowanceInfo.init)
            return status
        }
        router.add(Endpoints.check) { [core] context throws(APIError) in
            if let url = context.query.text("url") {
                guard context.query.text("name") == nil, context.query.text("app") == nil, context.query.text("for") == nil else {
                    throw APIError(.invalidArgument, "give exactly one of ?name=, ?url= and ?app= (and ?for= only with ?name=)")
                }
                return try await BrowserRoutes.check(url: url, core: core)
            }
            switch (context.query.text("name"), context.query.text("app")) {
            case (nil, let app?):
                do throws(FieldError) { try AppName.validateTyped(app, field: "app") } catch {
                    throw APIError(.invalidArgument, error.description)
                }
                let found = try await context.call { () async throws(AppLookupError) in try await reporter.checkApp(app) }
                return CheckResponse(
                    name: found.id, displayName: found.name,
                    matches: found.blockers.map {
                        CheckResponse.Match(
                            profile: $0.session.profile, session: $0.session.id, origin: $0.session.origin.rawValue,
                            rule: $0.rule)
                    },
                    enforcers: found.enforcers.map {
                        CheckResponse.EnforcerAnswer(name: $0.enforcer, blocks: $0.coverage.blocks, detail: $0.coverage.detail)
                    })
            case (_?, nil): break
            default: throw APIError(.invalidArgument, "give exactly one of ?name= (a domain) and ?app= (an app)")
            }
            let input = context.query.text("name") ?? ""
            let name: DomainName
            do { name = try names.lookupName(input) } catch { throw APIError(.invalidArgument, "name: \(error)") }
            // Whom the answer is for: this machine unless `for` names lan or a device group.
            var target = BlockTarget.localName
            if let text = context.query.text("for") {
                let parsed: BlockTarget
                do throws(FieldError) { parsed = try BlockTarget(parsing: [text]) } catch {
                    throw APIError(.invalidArgument, "for: \(error.reason)")
                }
                if let problem = await core.sessions.checkTarget(parsed) { throw APIError(.invalidArgument, "for: \(problem)") }
                target = parsed.names[0]
            }
            // `reddit.com.` is a name of its own to the hosts file; the enforcers are asked about it as typed.
            let trailingDot = input.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix(".")
            return CheckResponse(await reporter.check(name, target: target, trailingDot: trailingDot))
        }
        router.add(Endpoints.history) { context throws(APIError) in
            let limit = context.query.integer("limit") ?? 50
            return HistoryResponse(
                entries: try context.errors.run { () throws(ReportError) in try reporter.history(limit: limit) }.map(HistoryEntry.init))
        }
        router.add(Endpoints.doctor) { _ in DoctorReport(checks: await reporter.doctor().map(DoctorCheck.init)) }
        router.add(Endpoints.reload) { _ in
            let outcome = await coordinator.reload()
            return ReloadResponse(profiles: outcome.profiles, problems: outcome.problems)
        }
        router.addStream(Endpoints.events) { events.subscribe() }
    }
}

extension ErrorMapping {
    /// Runs a synchronous domain operation, turning its typed error into an API error.
    func run<T, Failure: APIMappable>(_ operation: () throws(Failure) -> T) throws(APIError) -> T {
        do { return try operation() } catch { throw error.apiError(self) }
    }
}
