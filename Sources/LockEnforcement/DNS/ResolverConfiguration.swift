import LockCore

/// Which DNS servers to ask and how patiently: read from resolv.conf(5) or given in the
/// daemon's configuration.
///
/// Deliberately not the system's name service switch: `getaddrinfo` consults /etc/hosts first,
/// and the hosts enforcer maps every blocked name to `0.0.0.0` there.
public struct ResolverConfiguration: Sendable, Equatable {
    /// One DNS server.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        /// The server's address (a single address).
        public var address: IPNetwork
        /// UDP/TCP port, 53 unless configured otherwise.
        public var port: UInt16
        /// Interface index for a link-local IPv6 server (`fe80::1%eth0`), else 0.
        public var scopeID: UInt32

        /// Creates a server entry.
        public init(address: IPNetwork, port: UInt16 = 53, scopeID: UInt32 = 0) {
            self.address = address
            self.port = port
            self.scopeID = scopeID
        }

        /// Parses `9.9.9.9`, `9.9.9.9:5353`, `2620:fe::fe`, `[2620:fe::fe]:5353`.
        ///
        /// - Throws: `IPNetworkError` naming the value when it is not one address (with port).
        public init(parsing text: String) throws(IPNetworkError) {
            self.init(try ResolverAddress(parsing: text))
        }

        /// The server at `resolver` (as the configuration names it).
        public init(_ resolver: ResolverAddress) {
            self.init(address: resolver.address, port: resolver.port)
        }

        /// True for a server on this machine (127.0.0.0/8, ::1): a local stub resolver.
        public var isLoopback: Bool {
            switch address.family {
            case .ipv4: address.address >> 24 == 127
            case .ipv6: address.address == 1
            }
        }

        public var description: String {
            if port == 53 { return address.description }
            return address.family == .ipv6 ? "[\(address)]:\(port)" : "\(address):\(port)"
        }
    }

    /// Servers in the order they are tried.
    public var servers: [Server]
    /// How long to wait for one answer before trying the next server.
    public var timeout: Duration
    /// How many rounds over all servers a query gets.
    public var attempts: Int

    /// Creates a configuration.
    public init(servers: [Server], timeout: Duration = .seconds(2), attempts: Int = 2) {
        self.servers = servers
        self.timeout = timeout
        self.attempts = max(1, attempts)
    }

    /// The longest per-try timeout honoured from resolv.conf: the whole resolution run has a
    /// deadline, and one slow server must not use it all up.
    public static let maximumTimeout: Duration = .seconds(5)

    /// Reads resolv.conf(5) text the way glibc does for the parts that matter here:
    /// `nameserver` lines (IPv4, IPv6, IPv6 with `%interface`) and `options timeout:N
    /// attempts:N`. With no usable nameserver line glibc asks the local machine, so does this.
    ///
    /// - Parameter interfaceIndex: maps an interface name to its index, for link-local servers.
    public static func parse(
        resolvConf text: String,
        interfaceIndex: (String) -> UInt32? = { _ in nil }
    ) -> ResolverConfiguration {
        var servers: [Server] = []
        var timeout: Duration = .seconds(2)
        var attempts = 2
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.split(
                maxSplits: 1, omittingEmptySubsequences: false,
                whereSeparator: { $0 == "#" || $0 == ";" })[0]
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = fields.first else { continue }
            switch keyword {
            case "nameserver":
                guard fields.count >= 2 else { continue }
                let parts = fields[1].split(separator: "%", maxSplits: 1)
                guard let address = try? IPNetwork(parsing: String(parts[0])), address.isSingleAddress else { continue }
                var scope: UInt32 = 0
                if parts.count == 2 {
                    guard let index = UInt32(parts[1]) ?? interfaceIndex(String(parts[1])) else { continue }
                    scope = index
                }
                servers.append(Server(address: address, scopeID: scope))
            case "options":
                for option in fields.dropFirst() {
                    if option.hasPrefix("timeout:"), let value = Int(option.dropFirst(8)), value >= 1 {
                        timeout = min(.seconds(value), maximumTimeout)
                    } else if option.hasPrefix("attempts:"), let value = Int(option.dropFirst(9)), value >= 1 {
                        attempts = min(value, 5)
                    }
                }
            default:
                continue
            }
        }
        if servers.isEmpty {
            servers = [Server(address: try! IPNetwork(parsing: "127.0.0.1"))]
        }
        return ResolverConfiguration(servers: servers, timeout: timeout, attempts: attempts)
    }

    /// True when every server is systemd-resolved's local stub (127.0.0.53 or 127.0.0.54).
    ///
    /// The stub answers from /etc/hosts as well, so the blocked names would come back as
    /// `0.0.0.0`; the resolver then reads the upstream servers from
    /// /run/systemd/resolve/resolv.conf instead.
    public var isSystemdStubOnly: Bool {
        let stubs: Set<UInt128> = [0x7f00_0035, 0x7f00_0036]
        return !servers.isEmpty && servers.allSatisfy { $0.address.family == .ipv4 && stubs.contains($0.address.address) }
    }
}
