import LockCore

/// The LAN settings of simplylockd.toml: device groups (`[lan]`) and the DNS servers the LAN
/// enforcers drive (`[unbound]`, `[dnsmasq]`).
///
/// ```toml
/// [lan]
/// kids = ["192.168.1.0/26"]          # a device group: addresses and networks
/// office = ["192.168.1.100", "2001:db8::/64"]
///
/// [unbound]
/// control = "/run/simplylock/unbound.ctl"                    # control-interface (a Unix socket)
/// include = "/etc/unbound/unbound.conf.d/simplylock.conf"    # generated; include it at top level
/// answer = "nxdomain"                                        # or "null" (0.0.0.0 and ::)
/// log = "/var/log/unbound/unbound.log"                       # logfile with log-local-actions: yes
///
/// [dnsmasq]
/// servers_file = "/run/simplylock/dnsmasq.servers"           # servers-file= in dnsmasq.conf
/// pid_file = "/run/dnsmasq/dnsmasq.pid"
/// ```
public enum LANSection {
    static let names = ["lan", "unbound", "dnsmasq"]
    static let unboundKeys: Set<String> = ["control", "include", "answer", "bulk_threshold", "log"]
    static let dnsmasqKeys: Set<String> = ["servers_file", "pid_file"]

    /// How the Unbound enforcer reaches Unbound.
    public struct Unbound: Sendable, Equatable {
        /// Unbound's `control-interface`, a Unix socket (`control-use-cert: no`).
        public var control = "/run/simplylock/unbound.ctl"
        /// The file the enforcer generates (views, large lists); Unbound must include it at top level.
        public var include = "/etc/unbound/unbound.conf.d/simplylock.conf"
        /// Blocked names answer NXDOMAIN (`nxdomain`) or 0.0.0.0 / :: (`null`).
        public var answerNull = false
        /// Changes of more names than this go through the include file and `reload_keep_cache`.
        public var bulkThreshold = 5_000
        /// Unbound's `logfile:` with `log-local-actions: yes`, for blocked attempts per device group.
        public var log: String?

        /// The defaults.
        public init() {}

        /// These settings with the default paths that were left as they are put under `root`
        /// (`--root` prefixes every default path; a path that was set is kept).
        public func under(root: String) -> Unbound {
            var result = self
            let defaults = Unbound()
            if control == defaults.control { result.control = Paths.join(root, String(control.dropFirst())) }
            if include == defaults.include { result.include = Paths.join(root, String(include.dropFirst())) }
            return result
        }
    }

    /// How the dnsmasq enforcer reaches dnsmasq.
    public struct Dnsmasq: Sendable, Equatable {
        /// The `servers-file` dnsmasq reads at each SIGHUP.
        public var serversFile = "/run/simplylock/dnsmasq.servers"
        /// dnsmasq's pid file, to signal it.
        public var pidFile = "/run/dnsmasq/dnsmasq.pid"

        /// The defaults.
        public init() {}

        /// These settings with the default paths that were left as they are put under `root`.
        public func under(root: String) -> Dnsmasq {
            var result = self
            let defaults = Dnsmasq()
            if serversFile == defaults.serversFile { result.serversFile = Paths.join(root, String(serversFile.dropFirst())) }
            if pidFile == defaults.pidFile { result.pidFile = Paths.join(root, String(pidFile.dropFirst())) }
            return result
        }
    }

    /// Everything the three sections say.
    public struct Settings: Sendable, Equatable {
        /// Device groups, sorted by name.
        public var groups: [DeviceGroup] = []
        /// `[unbound]`.
        public var unbound = Unbound()
        /// `[dnsmasq]`.
        public var dnsmasq = Dnsmasq()

        /// The defaults: no groups.
        public init() {}
    }

    /// The settings the sections give, and every problem; a bad group is left out, a bad key
    /// keeps its default.
    public static func parse(_ document: TOMLDocument) -> (settings: Settings, problems: [FileProblem]) {
        var settings = Settings()
        var problems: [FileProblem] = []
        func check(_ body: () throws(FileProblem) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        for name in names where document.table[name] != nil && document.table(name) == nil {
            problems.append(document.problem(name, "must be a table ([\(name)])"))
        }
        if let lan = document.table("lan") {
            var groups: [DeviceGroup] = []
            var owners: [IPNetwork: String] = [:]
            for key in lan.keys.sorted() {
                check { () throws(FileProblem) in
                    do throws(FieldError) { try NameRule.validate(key, kind: "device group") } catch {
                        throw document.problem(key, section: "lan", error.reason)
                    }
                    guard !BlockTarget.reserved.contains(key) else {
                        throw document.problem(
                            key, section: "lan",
                            "\"\(key)\" is reserved (local: this machine, lan: every device); choose another group name")
                    }
                    let texts = try document.strings(key, section: "lan")
                    guard !texts.isEmpty else {
                        throw document.problem(key, section: "lan", "a device group needs at least one address or network")
                    }
                    var networks: [IPNetwork] = []
                    for text in texts {
                        let network: IPNetwork
                        do throws(IPNetworkError) { network = try IPNetwork(parsing: text) } catch {
                            throw document.problem(
                                key, value: text, section: "lan",
                                "\(error.description) (expected an address such as 192.168.1.7 or a network such as 192.168.1.0/26)")
                        }
                        // Unbound picks one view per client: a client in two groups would get one of them.
                        if let owner = owners[network], owner != key {
                            throw document.problem(key, value: text, section: "lan", "\(text) is already in device group \"\(owner)\"")
                        }
                        networks.append(network)
                    }
                    for network in networks { owners[network] = key }
                    groups.append(DeviceGroup(name: key, networks: networks))
                }
            }
            settings.groups = groups
        }
        if document.table("unbound") != nil {
            for key in (document.table("unbound")?.keys ?? []).sorted() where !unboundKeys.contains(key) {
                problems.append(
                    document.problem(
                        key, section: "unbound",
                        "unknown field (expected one of: \(unboundKeys.sorted().joined(separator: ", ")))"))
            }
            check { () throws(FileProblem) in
                if let path = try absolutePath("control", section: "unbound", document) { settings.unbound.control = path }
            }
            check { () throws(FileProblem) in
                if let path = try absolutePath("include", section: "unbound", document) { settings.unbound.include = path }
            }
            check { () throws(FileProblem) in settings.unbound.log = try absolutePath("log", section: "unbound", document) }
            check { () throws(FileProblem) in
                guard let answer = try document.string("answer", section: "unbound") else { return }
                guard answer == "nxdomain" || answer == "null" else {
                    throw document.problem(
                        "answer", value: answer, section: "unbound",
                        "\"\(answer)\" is not an answer (nxdomain, or null for 0.0.0.0 and ::)")
                }
                settings.unbound.answerNull = answer == "null"
            }
            check { () throws(FileProblem) in
                guard let threshold = try document.int("bulk_threshold", section: "unbound") else { return }
                guard (1...10_000_000).contains(threshold) else {
                    throw document.problem("bulk_threshold", section: "unbound", "must be between 1 and 10000000")
                }
                settings.unbound.bulkThreshold = threshold
            }
        }
        if document.table("dnsmasq") != nil {
            for key in (document.table("dnsmasq")?.keys ?? []).sorted() where !dnsmasqKeys.contains(key) {
                problems.append(
                    document.problem(
                        key, section: "dnsmasq",
                        "unknown field (expected one of: \(dnsmasqKeys.sorted().joined(separator: ", ")))"))
            }
            check { () throws(FileProblem) in
                if let path = try absolutePath("servers_file", section: "dnsmasq", document) { settings.dnsmasq.serversFile = path }
            }
            check { () throws(FileProblem) in
                if let path = try absolutePath("pid_file", section: "dnsmasq", document) { settings.dnsmasq.pidFile = path }
            }
        }
        return (settings, problems)
    }

    private static func absolutePath(_ key: String, section: String, _ document: TOMLDocument) throws(FileProblem) -> String? {
        guard let path = try document.string(key, section: section) else { return nil }
        guard path.hasPrefix("/") else { throw document.problem(key, value: path, section: section, "\"\(path)\" is not an absolute path") }
        return path
    }
}
