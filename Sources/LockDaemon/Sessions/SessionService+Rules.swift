import LockCore
import Logging

// Sessions following their profile's rules and the imported lists' versions: in place, in one
// commit each, strict sessions only gaining.
extension SessionService {
    /// Gives the running sessions of `profile` its current rules: at once, in place (nothing
    /// is lifted in between). Strict sessions only gain rules; they never lose any before they
    /// end. When this cannot be enforced nothing changes and the error is thrown.
    public func refreshRules(for profile: String) async throws(SessionError) {
        try await gate.run { () async throws(SessionError) in try await refreshRulesNow(for: profile) }
    }

    /// Gives every running session its profile's current rules (after a reload); those that
    /// cannot be enforced now are retried at each checkpoint. Returns the failures.
    public func refreshAllRules() async -> [String] {
        await gate.run {
            var failures: [String] = []
            for name in Set(sessions.sessions.map(\.profile)).sorted() {
                do throws(SessionError) { try await refreshRulesNow(for: name) } catch {
                    failures.append("\(name): \(error)")
                }
            }
            return failures
        }
    }

    /// Moves the running sessions to a new version of the imported list `name`, or off it
    /// when `reference` is nil (the list is removed), in one commit. A session is concerned when
    /// it holds a version of the list or its profile names it. Strict sessions only gain: they
    /// keep every older version the new one does not cover (`isCovered`), and a list they hold
    /// cannot be removed (`.strict`). Returns the sessions changed.
    @discardableResult
    public func updateLists(
        _ name: String, to reference: BlocklistReference?,
        isCovered: @Sendable (BlocklistReference) -> Bool
    ) async throws(SessionError) -> [Session] {
        try await gate.run { () async throws(SessionError) -> [Session] in
            let now = clock()
            var change = SessionChange()
            for session in sessions.sessions where session.rules.mode == .blocklist {
                let held = session.rules.lists.filter { $0.name == name }
                let named = await profiles.expansion(of: session.profile)?.profile.lists.contains(name) ?? false
                guard !held.isEmpty || named else { continue }
                var rules = session.rules.droppingLists { $0.name == name }
                if let reference {
                    // A strict session keeps the older versions the new one does not cover.
                    let kept = session.strict ? held.filter { $0 != reference && !isCovered($0) } : []
                    rules = rules.withLists(rules.lists + [reference] + kept)
                } else if session.strict, !held.isEmpty {
                    throw .strict(session.resumed(at: now))
                }
                guard rules != session.rules else { continue }
                var updated = session
                updated.rules = rules
                change.updated.append(.init(old: session, new: updated))
            }
            try await commit(change, at: now)
            for update in change.updated {
                logger.info(
                    "session follows a changed blocklist",
                    metadata: metadata(
                        update.new,
                        [
                            "list": "\(name)", "lists": "\(update.new.rules.lists.map(\.description))",
                        ]))
            }
            return change.updated.map(\.new)
        }
    }

    /// Every list version a running session holds.
    public var heldLists: Set<BlocklistReference> { Set(sessions.sessions.flatMap(\.rules.lists)) }

    func refreshRulesNow(for profile: String) async throws(SessionError) {
        let now = clock()
        let running = sessions.sessions.filter { $0.profile == profile }
        // A profile that is gone keeps its sessions' snapshot until they end.
        guard !running.isEmpty, let fresh = await profiles.expansion(of: profile)?.rules else {
            staleProfiles.remove(profile)
            return
        }
        var change = SessionChange()
        for session in running {
            let rules = session.strict ? session.rules.merged(with: fresh, lists: listResolver) : fresh
            guard rules != session.rules else { continue }
            var updated = session
            updated.rules = rules
            change.updated.append(.init(old: session, new: updated))
        }
        do { try await commit(change, at: now) } catch {
            staleProfiles.insert(profile)
            throw error
        }
        staleProfiles.remove(profile)
    }
}
