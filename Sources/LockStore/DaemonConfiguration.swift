import Foundation
import LockCore

/// The daemon's settings from `simplylockd.toml`. Every field is optional; a missing file
/// means all defaults.
public struct DaemonConfiguration: Sendable, Equatable {
    /// swift-log level name: trace, debug, info, notice, warning, error, critical.
    public var logLevel = "info"
    /// Enforcers to run, in order; nil means the hosts file, plus nftables where it works.
    public var enforcers: [String]?
    /// DNS servers for resolving blocked names into firewall addresses (`9.9.9.9`,
    /// `[2620:fe::fe]:53`); empty means the machine's resolv.conf.
    public var resolvers: [String] = []
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

    static let logLevels: Set<String> = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    static let knownEnforcers: Set<String> = ["hosts", "nftables", "dns"]

    /// The defaults.
    public init() {}

    /// An address with an optional port: `9.9.9.9`, `9.9.9.9:53`, `2620:fe::fe`, `[2620:fe::fe]:53`.
    static func isResolverAddress(_ text: String) -> Bool {
        var host = Substring(text)
        var port: Substring?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            port = host[host.index(after: close)...].drop { $0 == ":" }
            host = host[host.index(after: host.startIndex)..<close]
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        if let port, !port.isEmpty, UInt16(port) == nil { return false }
        guard let address = try? IPNetwork(parsing: String(host)) else { return false }
        return address.isSingleAddress
    }

    /// Reads `path`; a missing file gives the defaults, a bad one a located problem.
    public static func load(_ path: String) throws(FileProblem) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        guard FileManager.default.fileExists(atPath: path) else { return configuration }
        let document = try TOMLDocument(contentsOf: path)
        try document.requireOnly(["log_level", "enforcers", "resolvers", "doh_list", "checkpoint_interval", "max_session",
                                  "schedule_warning", PomodoroSection.name])
        if let level = try document.string("log_level") {
            guard logLevels.contains(level) else {
                throw document.problem("log_level", value: level,
                                       "\"\(level)\" is not a log level (\(logLevels.sorted().joined(separator: ", ")))")
            }
            configuration.logLevel = level
        }
        if document.table["enforcers"] != nil {
            let names = try document.strings("enforcers")
            for name in names where !knownEnforcers.contains(name) {
                throw document.problem("enforcers", value: name,
                                       "unknown enforcer \"\(name)\" (known: \(knownEnforcers.sorted().joined(separator: ", ")))")
            }
            guard !names.isEmpty else { throw document.problem("enforcers", "at least one enforcer is needed") }
            guard names.contains("hosts") else {
                throw document.problem("enforcers", "\"hosts\" is required: the firewall alone does not stop name lookups")
            }
            configuration.enforcers = names
        }
        for text in try document.strings("resolvers") {
            guard DaemonConfiguration.isResolverAddress(text) else {
                throw document.problem("resolvers", value: text, "\"\(text)\" is not a resolver address (9.9.9.9, 2620:fe::fe or [2620:fe::fe]:53)")
            }
            configuration.resolvers.append(text)
        }
        configuration.dohList = try document.string("doh_list")
        if let interval = try document.duration("checkpoint_interval") {
            guard interval >= .seconds(1), interval <= .seconds(3600) else {
                throw document.problem("checkpoint_interval", "must be between 1s and 1h")
            }
            configuration.checkpointInterval = interval
        }
        if let limit = try document.duration("max_session") { configuration.maxSession = limit }
        configuration.pomodoro = try PomodoroSection.parse(document)
        if let text = try document.string("schedule_warning") {
            do { configuration.scheduleWarning = try Schedule.parseWarning(text) } catch {
                throw document.problem("schedule_warning", value: text, error.reason)
            }
        }
        return configuration
    }
}
