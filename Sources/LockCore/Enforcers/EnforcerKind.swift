/// What one kind of enforcer is, described once: its name, what it covers, where it is
/// configured, whether it acts on the whole machine, what it lets a block target on the LAN,
/// and where its blocked attempts come from. The configuration's `enforcers` list, the
/// `--enforcers` option, the targets a block may name and the daemon's enforcer registry
/// (`EnforcerRegistry`, which says how each is built) all read this table.
public struct EnforcerKind: Sendable, Equatable, CustomStringConvertible {
    /// What an enforcer can keep from being reached.
    public struct Covers: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Exact names (`example.com`, its `www.` twin).
        public static let names = Covers(rawValue: 1 << 0)
        /// Every name under a blocked one.
        public static let subdomains = Covers(rawValue: 1 << 1)
        /// Addresses and networks (and the addresses blocked names resolve to).
        public static let addresses = Covers(rawValue: 1 << 2)
        /// Programs.
        public static let apps = Covers(rawValue: 1 << 3)
        /// Other devices on the LAN, through their DNS server.
        public static let lanTargets = Covers(rawValue: 1 << 4)
    }

    /// Stable short name (`hosts`, `nftables`), as in the configuration and in status output.
    public let name: String
    /// What it covers.
    public let covers: Covers
    /// Its section of `simplylockd.toml`, if it has one.
    public let section: String?
    /// It changes the whole machine, not files under the root: under a scratch `--root` it runs
    /// only when named with `--enforcers`.
    public let machineWide: Bool
    /// What a block may target when it runs (nil: this machine only).
    public let lanReach: TargetPolicy.LANReach?
    /// Where its blocked attempts come from, if it reports them.
    public let attempts: String?

    public var description: String { name }

    /// The hosts file's managed section.
    public static let hosts = EnforcerKind(
        name: "hosts", covers: [.names], section: nil, machineWide: false, lanReach: nil, attempts: nil)
    /// The DNS filter (a forwarder the firewall sends the machine's DNS to).
    public static let dns = EnforcerKind(
        name: "dns", covers: [.names, .subdomains], section: nil, machineWide: true, lanReach: nil,
        attempts: "the DNS filter's blocked answers")
    /// The connection-time name check: the TLS ClientHello's name (SNI) or the HTTP `Host:` of
    /// a new connection's first payload, queued to the daemon by tables of its own.
    public static let connections = EnforcerKind(
        name: "connections", covers: [.names, .subdomains], section: nil, machineWide: true, lanReach: nil,
        attempts: "refused connections (the name each asked for, 50 a second)")
    /// The nftables table of resolved and configured addresses.
    public static let nftables = EnforcerKind(
        name: "nftables", covers: [.addresses], section: nil, machineWide: true, lanReach: nil,
        attempts: "refused connections (NFLOG group, named counters)")
    /// Programs, through fanotify or the proc connector.
    public static let apps = EnforcerKind(
        name: "apps", covers: [.apps], section: "apps", machineWide: true, lanReach: nil, attempts: "denied execs")
    /// Programs, through a BPF LSM program pinned so that it outlives the daemon.
    public static let bpf = EnforcerKind(
        name: "bpf", covers: [.apps], section: nil, machineWide: true, lanReach: nil, attempts: nil)
    /// A LAN's Unbound server, per device group (views).
    public static let unbound = EnforcerKind(
        name: "unbound", covers: [.names, .subdomains, .lanTargets], section: "unbound", machineWide: true,
        lanReach: .perDevice, attempts: nil)
    /// A LAN's dnsmasq server, every client alike.
    public static let dnsmasq = EnforcerKind(
        name: "dnsmasq", covers: [.names, .subdomains, .lanTargets], section: "dnsmasq", machineWide: true,
        lanReach: .everyone(enforcer: "dnsmasq"), attempts: nil)

    /// Every kind, in the order they are built and apply: the DNS filter before nftables, so that
    /// the forwarder listens by the time the firewall's first commit asks where to send DNS.
    public static let all: [EnforcerKind] = [.hosts, .dns, .connections, .nftables, .apps, .bpf, .unbound, .dnsmasq]

    /// The kind named `name`, if any.
    public static func named(_ name: String) -> EnforcerKind? { all.first { $0.name == name } }
}
