/// The active sessions, and the arithmetic the daemon needs over them: what is blocked, when
/// the next one ends, which ones a user's words refer to.
public struct SessionSet: Sendable, Equatable {
    /// Active sessions in the order they started.
    public private(set) var sessions: [Session]

    /// Creates a set.
    public init(_ sessions: [Session] = []) { self.sessions = sessions }

    /// True when nothing is active.
    public var isEmpty: Bool { sessions.isEmpty }

    /// Adds a session.
    public mutating func insert(_ session: Session) {
        sessions.removeAll { $0.id == session.id }
        sessions.append(session)
    }

    /// Replaces the session with the same id.
    public mutating func update(_ session: Session) {
        if let index = sessions.firstIndex(where: { $0.id == session.id }) { sessions[index] = session }
    }

    /// Removes and returns the session with `id`.
    @discardableResult
    public mutating func remove(id: String) -> Session? {
        guard let index = sessions.firstIndex(where: { $0.id == id }) else { return nil }
        return sessions.remove(at: index)
    }

    /// The session with `id`.
    public func session(id: String) -> Session? { sessions.first { $0.id == id } }

    /// The sessions a user's reference means: the session with that id, or else every
    /// session of the profile with that name.
    public func sessions(matching reference: String) -> [Session] {
        if let byID = session(id: reference) { return [byID] }
        return sessions.filter { $0.profile == reference }
    }

    /// Sessions whose time is up at `now`.
    public func ended(at now: ClockReading) -> [Session] { sessions.filter { $0.hasEnded(at: now) } }

    /// The earliest end among the sessions, on the boot clock: when the daemon must wake.
    public var nextDeadline: BootTime? { sessions.map(\.endBoot).min() }

    /// The union of every session's rules, as enforcers need it: the sessions that target this
    /// machine for its enforcers, and per LAN target the rules of the sessions that target it
    /// (`groups`: the configured device groups, handed on to the LAN enforcers).
    /// Blocklists unite; allowlists intersect (a second allowlist can only narrow what is
    /// reachable); blocklists still apply on top of an allowlist. Apps of every session unite,
    /// whatever its mode; an app is matched by content (`BlockedApp.strict`) when a strict
    /// session blocks it.
    public func desiredBlock(groups: [DeviceGroup]) -> DesiredBlock {
        let local = sessions.filter(\.target.includesLocal)
        let blocking = local.filter { $0.rules.mode == .blocklist }
        let allowing = local.filter { $0.rules.mode == .allowlist }
        var allowOnly: AllowList?
        if let first = allowing.first {
            var names = Set(first.rules.allowedNames)
            var addresses = Set(first.rules.addresses)
            for session in allowing.dropFirst() {
                names.formIntersection(session.rules.allowedNames)
                addresses.formIntersection(session.rules.addresses)
            }
            allowOnly = AllowList(domains: names, addresses: addresses)
        }
        let apps = local.flatMap { session in
            session.rules.apps.map { app in
                var app = app
                app.strict = session.strict
                return app
            }
        }
        var targets: [String: [BlockRules]] = [:]
        for session in sessions {
            for target in session.target.lanTargets { targets[target, default: []].append(session.rules) }
        }
        return DesiredBlock(
            domains: NameList(merging: blocking.map(\.rules.exactNames)), addresses: blocking.flatMap(\.rules.addresses),
            allowOnly: allowOnly, rules: local.map(\.rules), apps: apps,
            lan: LANBlock(groups: groups, targets: targets))
    }

    /// `desiredBlock(groups:)` without configured device groups.
    public var desiredBlock: DesiredBlock { desiredBlock(groups: []) }

    /// Which sessions block the app `id` with these executables, each with the id of the
    /// blocked app that matches (the same id, or another name for one of its programs).
    public func blockers(ofApp id: String, executables: [String]) -> [(session: Session, rule: String)] {
        sessions.compactMap { session in session.rules.blockedApp(id: id, executables: executables).map { (session, $0.id) } }
    }

    /// Which sessions block `name` (normalised), each with the rule that matches and the
    /// imported list it comes from (nil for the profile's own rules); lists count when `lists`
    /// finds them. With `target`, only the sessions that target it (`local`, `lan` or a device
    /// group; a group's clients are also refused what `lan` sessions block).
    public func blockers(of name: String, target: String? = nil, lists resolve: (BlocklistReference) -> Blocklist? = { _ in nil })
        -> [(session: Session, rule: String, list: String?)]
    {
        sessions.compactMap { session in
            if let target {
                let names = session.target.names
                guard names.contains(target) || (target != BlockTarget.localName && names.contains(BlockTarget.lanName)) else {
                    return nil
                }
            }
            return session.rules.blockingRule(for: name, lists: resolve).map { (session, $0.rule, $0.list) }
        }
    }
}
