/// One application a block keeps from running, as enforcers receive it: the executables the app
/// catalog found for it when the block was computed. The enforcer identifies each by (device,
/// inode) when it applies, so a path that is renamed, hard-linked or seen through a sandbox
/// still matches, and (for strict blocks) by content, so that a copy matches too.
public struct BlockedApp: Sendable, Hashable, Codable, Comparable {
    /// What a block does to instances already running when it starts.
    public enum RunningPolicy: String, Sendable, Hashable, Codable, CaseIterable {
        /// SIGTERM, then SIGKILL after a grace period.
        case terminate
        /// Freeze the app's cgroup (its `app-*.scope`) until the block ends; terminate when it
        /// has no scope of its own.
        case freeze
    }

    /// The app's identifier: desktop id (`steam`), flatpak id, snap name or a path.
    public var id: String
    /// Name shown to the user (`Steam`).
    public var name: String
    /// Absolute paths of its executables and scripts, sorted and unique.
    public var executables: [String]
    /// Also match copies of the executables by content (SHA-256).
    public var strict: Bool
    /// What happens to running instances.
    public var running: RunningPolicy

    /// Creates an entry; executables are sorted and de-duplicated.
    public init(
        id: String, name: String? = nil, executables: some Sequence<String>, strict: Bool = false,
        running: RunningPolicy = .terminate
    ) {
        self.id = id
        self.name = name ?? id
        self.executables = Array(Set(executables)).sorted()
        self.strict = strict
        self.running = running
    }

    public static func < (lhs: BlockedApp, rhs: BlockedApp) -> Bool { lhs.id < rhs.id }

    /// The same app blocked by several sessions: executables united, strict if any session is,
    /// and terminating wins over freezing (the stronger request is honoured).
    public func merged(with other: BlockedApp) -> BlockedApp {
        BlockedApp(
            id: id, name: name, executables: executables + other.executables, strict: strict || other.strict,
            running: running == .terminate || other.running == .terminate ? .terminate : .freeze)
    }

    /// One entry per id, merged, sorted by id.
    public static func union(_ apps: some Sequence<BlockedApp>) -> [BlockedApp] {
        var byID: [String: BlockedApp] = [:]
        for app in apps { byID[app.id] = byID[app.id].map { $0.merged(with: app) } ?? app }
        return byID.values.sorted()
    }

    private enum CodingKeys: String, CodingKey { case id, name, executables, strict, running }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            name: try container.decodeIfPresent(String.self, forKey: .name),
            executables: try container.decode([String].self, forKey: .executables),
            strict: try container.decodeIfPresent(Bool.self, forKey: .strict) ?? false,
            running: try container.decodeIfPresent(RunningPolicy.self, forKey: .running) ?? .terminate)
    }
}
