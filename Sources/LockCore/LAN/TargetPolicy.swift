/// Which block targets this daemon can enforce: the device groups configured in `[lan]`, and
/// what the LAN enforcers that run can do. Sessions, schedules and Pomodoro runs are checked
/// against it before anything changes.
public struct TargetPolicy: Sendable, Equatable {
    /// What the LAN enforcers in use can tell apart.
    public enum LANReach: Sendable, Equatable {
        /// No LAN enforcer runs: only this machine can be targeted.
        case none
        /// Every client alike (dnsmasq has no per-client policy): `lan` but no device group.
        case everyone(enforcer: String)
        /// Clients told apart by address (Unbound views): `lan` and device groups.
        case perDevice
    }

    /// The configured device groups, by name.
    public var groups: [DeviceGroup]
    /// What the LAN enforcers can do.
    public var reach: LANReach
    /// Where the groups are configured, for messages.
    public var configFile: String
    /// LAN enforcers the configuration names that do not run because, under a scratch
    /// `--root`, enforcers acting beyond this machine run only when named with `--enforcers`.
    public var heldBack: [String]

    /// Creates a policy.
    public init(groups: [DeviceGroup] = [], reach: LANReach = .none, configFile: String = "simplylockd.toml", heldBack: [String] = []) {
        self.groups = groups.sorted { $0.name < $1.name }
        self.reach = reach
        self.configFile = configFile
        self.heldBack = heldBack
    }

    /// Only this machine.
    public static let localOnly = TargetPolicy()

    /// The group called `name`.
    public func group(_ name: String) -> DeviceGroup? { groups.first { $0.name == name } }

    /// Why `target` cannot be enforced here, or nil when it can.
    public func problem(with target: BlockTarget) -> TargetProblem? {
        let known = Set(groups.map(\.name))
        if let unknown = target.groups.first(where: { !known.contains($0) }) {
            return .unknownGroup(unknown, known: groups.map(\.name), configFile: configFile)
        }
        guard !target.lanTargets.isEmpty else { return nil }
        switch reach {
        case .none: return .noLANEnforcer(target: target.lanTargets[0], configFile: configFile, heldBack: heldBack)
        case .everyone(let enforcer):
            if let group = target.groups.first { return .noPerDevicePolicy(group: group, enforcer: enforcer) }
            return nil
        case .perDevice: return nil
        }
    }
}

/// Why a block target cannot be enforced.
public enum TargetProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No device group has that name.
    case unknownGroup(String, known: [String], configFile: String)
    /// A LAN target, but no LAN enforcer (unbound, dnsmasq) runs; `heldBack`: those the
    /// configuration names but a scratch `--root` keeps from running unless named with `--enforcers`.
    case noLANEnforcer(target: String, configFile: String, heldBack: [String])
    /// A device group, but the LAN enforcer cannot tell clients apart.
    case noPerDevicePolicy(group: String, enforcer: String)

    public var description: String {
        switch self {
        case .unknownGroup(let name, let known, let file):
            let listed =
                known.isEmpty
                ? "no device groups are configured ([lan] in \(file))"
                : "[lan] in \(file) names \(known.joined(separator: ", ")); also local (this machine) and lan (every device)"
            return "unknown device group \"\(name)\" (\(listed))"
        case .noLANEnforcer(let target, let file, let heldBack) where !heldBack.isEmpty:
            return "\"\(target)\" is on the LAN, but no LAN enforcer runs: \(heldBack.joined(separator: ", ")) in \(file) acts beyond "
                + "this machine, so under --root it runs only when named with --enforcers"
        case .noLANEnforcer(let target, _, _):
            return "\"\(target)\" is on the LAN, but no LAN enforcer runs (unbound, dnsmasq)"
        case .noPerDevicePolicy(let group, let enforcer):
            return "device group \"\(group)\" cannot be blocked through \(enforcer): it answers every client alike (no per-client policy)"
        }
    }
}
