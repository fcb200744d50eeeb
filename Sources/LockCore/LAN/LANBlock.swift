/// What the LAN enforcers (Unbound, dnsmasq) must block: for each LAN target, `lan` (every
/// client of the DNS server) or a device group, the rules of the sessions that target it; and
/// every configured device group with its members, so that a per-device mechanism knows them
/// even while nothing blocks for them.
public struct LANBlock: Sendable, Equatable, Codable {
    /// Every configured device group, sorted by name.
    public var groups: [DeviceGroup]
    /// The rules of the active sessions per LAN target (`lan` or a group name); targets no
    /// session blocks are left out. A group that is no longer configured may appear here (its
    /// sessions keep their target): enforcers report it instead of guessing its members.
    public var targets: [String: [BlockRules]]

    /// Creates a LAN block.
    public init(groups: [DeviceGroup] = [], targets: [String: [BlockRules]] = [:]) {
        self.groups = groups.sorted { $0.name < $1.name }
        self.targets = targets.filter { !$0.value.isEmpty }
    }

    /// Nothing blocked on the LAN.
    public static let empty = LANBlock()

    /// True when no session targets the LAN.
    public var isEmpty: Bool { targets.isEmpty }

    /// The rules for one target (`lan` or a group name).
    public func rules(for target: String) -> [BlockRules] { targets[target] ?? [] }

    /// The targets with rules that are device groups (not `lan`), sorted.
    public var blockedGroups: [String] { targets.keys.filter { $0 != BlockTarget.lanName }.sorted() }

    /// Targeted groups that are not configured (any more), sorted.
    public var unknownGroups: [String] {
        let known = Set(groups.map(\.name))
        return blockedGroups.filter { !known.contains($0) }
    }

    /// The rule that blocks `name` for the members of `target` (`lan`: every client), or nil:
    /// what a client in that group is refused, `lan` sessions included.
    public func verdict(for name: String, target: String) -> String? {
        var canonical = name.lowercased()
        if canonical.hasSuffix(".") { canonical.removeLast() }
        guard !canonical.isEmpty else { return nil }
        var scopes = [BlockTarget.lanName]
        if target != BlockTarget.lanName { scopes.append(target) }
        for scope in scopes {
            for rules in self.rules(for: scope) {
                if let rule = rules.blockingRule(for: canonical) { return rule }
            }
        }
        return nil
    }
}
