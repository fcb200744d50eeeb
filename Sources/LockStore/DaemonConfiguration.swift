import Foundation
import LockCore

/// The daemon's settings from `simplylockd.toml`. Every field is optional; a missing file
/// means all defaults.
public struct DaemonConfiguration: Sendable, Equatable {
    /// swift-log level name: trace, debug, info, notice, warning, error, critical.
    public var logLevel = "info"
    /// Enforcers to run, in order; nil means the default set for this machine.
    public var enforcers: [String]?
    /// DNS servers for resolving blocked names into firewall addresses (`9.9.9.9`,
    /// `[2620:fe::fe]:53`); empty means the machine's resolv.conf.
    public var resolvers: [ResolverAddress] = []
    /// A DNS-over-HTTPS endpoint list to use instead of the shipped `doh.txt`.
    public var dohList: String?
    /// How often active sessions are checkpointed to disk (what a reboot can lose at most).
    public var checkpointInterval: Duration = .seconds(60)
    /// Longest session that may be started or extended to.
    public var maxSession: Duration = .seconds(30 * 86_400)
    /// Defaults of `lockctl pomodoro start` (the `[pomodoro]` section).
    public var pomodoro = PomodoroConfig()
    /// How long before a schedule starts or ends a warning goes out, unless the schedule says
    /// otherwise; zero for none.
    public var scheduleWarning: Duration = .seconds(300)
    /// The most names the hosts section lists (the first ones in sorted order beyond it):
    /// every lookup on the machine reads the hosts file, so it is kept to profile-sized sets;
    /// the DNS filter and the firewall still block every name.
    public var hostsMaxNames = 20_000
    /// The loopback port of the DNS filter (the nftables redirect sends the machine's DNS there
    /// during blocks).
    public var dnsPort: UInt16 = 10053
    /// The app catalog's extra places and the app enforcer's settings (the `[apps]` section).
    public var apps = AppsSection.Settings()
    /// The `[friction]` section: how strict blocks of profiles without their own can be ended
    /// early; nil when absent (strict means strict, unless a profile says otherwise).
    public var friction: FrictionSettings?
    /// How long blocked attempts are kept (`[insights] retention`).
    public var attemptRetention: Duration = .seconds(365 * 86_400)
    /// Device groups and the LAN DNS servers (`[lan]`, `[unbound]`, `[dnsmasq]`).
    public var lan = LANSection.Settings()

    static let logLevels: Set<String> = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    /// Every enforcer name the daemon knows.
    public static let knownEnforcers: Set<String> = Set(EnforcerKind.all.map(\.name))
    static let keys = Set(
        [
            "log_level", "enforcers", "resolvers", "doh_list", "checkpoint_interval", "max_session",
            "schedule_warning", "hosts_max_names", "dns_port", PomodoroSection.name, AppsSection.name,
            FrictionSection.name, InsightsSection.name,
        ] + LANSection.names)
    /// The longest `max_session` that may be configured.
    public static let maxSessionLimit: Duration = .seconds(366 * 86_400)

    /// The defaults.
    public init() {}

    /// A configuration and every problem found in its file.
    public struct Loaded: Sendable, Equatable {
        /// The settings: each valid key's value, the default for every other.
        public var configuration: DaemonConfiguration
        /// Every problem, located (`file:line: field: reason`); the keys they name keep their defaults.
        public var problems: [FileProblem]

        /// Pairs settings with the problems found reading them.
        public init(configuration: DaemonConfiguration, problems: [FileProblem] = []) {
            self.configuration = configuration
            self.problems = problems
        }

        /// The settings when the file had no problem; otherwise its first problem, thrown (for
        /// callers that take a file whole or not at all).
        public func get() throws(FileProblem) -> DaemonConfiguration {
            if let problem = problems.first { throw problem }
            return configuration
        }
    }

    /// Reads `path`. A missing file gives the defaults. Every key is checked on its own: a bad
    /// one is reported and keeps its default, the valid ones are used, so one typo never
    /// discards the rest of the file.
    public static func load(_ path: String) -> Loaded {
        var configuration = DaemonConfiguration()
        guard FileManager.default.fileExists(atPath: path) else { return Loaded(configuration: configuration, problems: []) }
        let document: TOMLDocument
        do { document = try TOMLDocument(contentsOf: path) } catch {
            return Loaded(configuration: configuration, problems: [error])
        }
        var problems: [FileProblem] = []
        func check(_ body: () throws(FileProblem) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        for key in document.table.keys.sorted() where !keys.contains(key) {
            problems.append(document.problem(key, "unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))"))
        }
        check { () throws(FileProblem) in
            guard let level = try document.string("log_level") else { return }
            guard logLevels.contains(level) else {
                throw document.problem(
                    "log_level", value: level,
                    "\"\(level)\" is not a log level (\(logLevels.sorted().joined(separator: ", ")))")
            }
            configuration.logLevel = level
        }
        check { () throws(FileProblem) in
            guard document.table["enforcers"] != nil else { return }
            let names = try document.strings("enforcers")
            for name in names where !knownEnforcers.contains(name) {
                throw document.problem(
                    "enforcers", value: name,
                    "unknown enforcer \"\(name)\" (known: \(knownEnforcers.sorted().joined(separator: ", ")))")
            }
            guard !names.isEmpty else { throw document.problem("enforcers", "at least one enforcer is needed") }
            guard names.contains("hosts") else {
                throw document.problem("enforcers", "\"hosts\" is required: the firewall alone does not stop name lookups")
            }
            if names.contains("unbound"), names.contains("dnsmasq") {
                throw document.problem("enforcers", "use either \"unbound\" or \"dnsmasq\" for the LAN, not both")
            }
            configuration.enforcers = names
        }
        check { () throws(FileProblem) in
            var resolvers: [ResolverAddress] = []
            for text in try document.strings("resolvers") {
                do throws(IPNetworkError) { resolvers.append(try ResolverAddress(parsing: text)) } catch {
                    throw document.problem(
                        "resolvers", value: text,
                        "\"\(text)\" is not a resolver address (9.9.9.9, 2620:fe::fe or [2620:fe::fe]:53)")
                }
            }
            configuration.resolvers = resolvers
        }
        check { () throws(FileProblem) in configuration.dohList = try document.string("doh_list") }
        check { () throws(FileProblem) in
            guard let interval = try document.duration("checkpoint_interval") else { return }
            guard interval >= .seconds(1), interval <= .seconds(3600) else {
                throw document.problem("checkpoint_interval", "must be between 1s and 1h")
            }
            configuration.checkpointInterval = interval
        }
        check { () throws(FileProblem) in
            guard let limit = try document.duration("max_session") else { return }
            guard limit >= .seconds(60), limit <= maxSessionLimit else {
                throw document.problem("max_session", "must be between 1m and 366d")
            }
            configuration.maxSession = limit
        }
        let pomodoro = PomodoroSection.parse(document)
        configuration.pomodoro = pomodoro.config
        problems += pomodoro.problems
        let apps = AppsSection.parse(document)
        configuration.apps = apps.settings
        problems += apps.problems
        let lan = LANSection.parse(document)
        configuration.lan = lan.settings
        problems += lan.problems
        let friction = FrictionSection.parse(document)
        configuration.friction = friction.settings
        problems += friction.problems
        let insights = InsightsSection.parse(document)
        if let retention = insights.retention { configuration.attemptRetention = retention }
        problems += insights.problems
        check { () throws(FileProblem) in
            guard let text = try document.string("schedule_warning") else { return }
            do throws(FieldError) { configuration.scheduleWarning = try Schedule.parseWarning(text) } catch {
                throw document.problem("schedule_warning", value: text, error.reason)
            }
        }
        check { () throws(FileProblem) in
            guard let limit = try document.int("hosts_max_names") else { return }
            guard (100...1_000_000).contains(limit) else {
                throw document.problem("hosts_max_names", value: "\(limit)", "must be between 100 and 1000000")
            }
            configuration.hostsMaxNames = limit
        }
        check { () throws(FileProblem) in
            guard let port = try document.int("dns_port") else { return }
            guard (1...65_535).contains(port) else {
                throw document.problem("dns_port", value: "\(port)", "must be a port from 1 to 65535")
            }
            configuration.dnsPort = UInt16(port)
        }
        return Loaded(configuration: configuration, problems: problems.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
    }
}
