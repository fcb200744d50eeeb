import LockCore

/// The local zones that make Unbound block what a `LANBlock` says: for the whole LAN (the
/// global zones) and for each device group (the zones of its view, `simplylock-GROUP`).
///
/// A blocked name becomes a zone of the blocking type (`always_nxdomain` or `always_null`),
/// which covers the name and everything under it; an exception becomes a `transparent` zone,
/// more specific than the blocked one, unless another session blocks it. An allowlist session
/// blocks the root (`.`) with its allowed names transparent. Views are declared with
/// `view-first: yes`, so that a name no zone of the view decides (an exception included: a
/// transparent zone without data does not decide) is looked up in the global zones: the
/// whole LAN's blocks hold for every group.
public struct UnboundZones: Sendable, Equatable {
    /// The view of the device group `group`.
    public static func viewName(_ group: String) -> String { "simplylock-" + group }
    /// A view of no client, declared in the include file; a zone put in it at each apply
    /// vanishes when Unbound restarts or reloads, which is how the enforcer notices.
    public static let sentinelView = "simplylock"
    /// The zone kept in the sentinel view.
    public static let sentinelZone = "applied.simplylock.invalid"

    /// Zone name → type, for the global zones.
    public var global: [String: String]
    /// View name → (zone name → type).
    public var views: [String: [String: String]]

    /// Nothing.
    public static let empty = UnboundZones(global: [:], views: [:])

    /// Creates zones.
    public init(global: [String: String], views: [String: [String: String]]) {
        self.global = global
        self.views = views
    }

    /// The zones for `lan`; `answerNull` blocks with 0.0.0.0 / :: instead of NXDOMAIN. Every
    /// configured group gets its view, empty while nothing targets it.
    public init(_ lan: LANBlock, answerNull: Bool) {
        let type = answerNull ? "always_null" : "always_nxdomain"
        global = Self.zones(lan.rules(for: BlockTarget.lanName), type: type)
        var views: [String: [String: String]] = [:]
        for group in lan.groups { views[Self.viewName(group.name)] = Self.zones(lan.rules(for: group.name), type: type) }
        self.views = views
    }

    /// How many zones in all.
    public var count: Int { global.count + views.values.reduce(0) { $0 + $1.count } }

    static func zones(_ rules: [BlockRules], type: String) -> [String: String] {
        var result: [String: String] = [:]
        if rules.contains(where: { $0.mode == .allowlist }) { result["."] = type }
        for session in rules where session.mode == .blocklist {
            session.block.forEach { result[$0] = type }
        }
        func blockedByAnyone(_ name: String) -> Bool { rules.contains { $0.blockingRule(for: name) != nil } }
        for session in rules {
            let exceptions = session.mode == .blocklist ? session.allow : session.block
            exceptions.forEach { name in
                if !blockedByAnyone(name) { result[name] = "transparent" }
            }
        }
        return result
    }

    /// What to change to go from `self` to `target`, per scope (`nil`: global; else a view):
    /// zones to remove, then zones to add (or to give another type).
    public func changes(to target: UnboundZones) -> [(view: String?, remove: [String], add: [(String, String)])] {
        var result: [(String?, [String], [(String, String)])] = []
        func diff(_ old: [String: String], _ new: [String: String]) -> ([String], [(String, String)]) {
            let remove = old.keys.filter { new[$0] == nil }.sorted()
            let add = new.filter { old[$0.key] != $0.value }.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
            return (remove, add)
        }
        let global = diff(self.global, target.global)
        if !global.0.isEmpty || !global.1.isEmpty { result.append((nil, global.0, global.1)) }
        for view in Set(views.keys).union(target.views.keys).sorted() {
            let change = diff(views[view] ?? [:], target.views[view] ?? [:])
            if !change.0.isEmpty || !change.1.isEmpty { result.append((view, change.0, change.1)) }
        }
        return result
    }

    /// The number of zones `changes(to:)` touches.
    public func changeCount(to target: UnboundZones) -> Int {
        changes(to: target).reduce(0) { $0 + $1.remove.count + $1.add.count }
    }

    /// The number of view zones `changes(to:)` touches.
    public func viewChangeCount(to target: UnboundZones) -> Int {
        changes(to: target).filter { $0.view != nil }.reduce(0) { $0 + $1.remove.count + $1.add.count }
    }
}
