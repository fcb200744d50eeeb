/// A DNS server as the configuration names it: one address, and a port (53 unless given).
/// Parsed once, where the configuration is read; the enforcers take it as it is.
public struct ResolverAddress: Sendable, Hashable, CustomStringConvertible {
    /// The server's address (a single address).
    public var address: IPNetwork
    /// UDP/TCP port.
    public var port: UInt16

    /// Creates an address.
    public init(address: IPNetwork, port: UInt16 = 53) {
        self.address = address
        self.port = port
    }

    /// Parses `9.9.9.9`, `9.9.9.9:5353`, `2620:fe::fe`, `[2620:fe::fe]:5353`.
    ///
    /// - Throws: `IPNetworkError` naming the value when it is not one address (with port).
    public init(parsing text: String) throws(IPNetworkError) {
        var host = Substring(text)
        var port: UInt16 = 53
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                throw IPNetworkError(value: text, reason: "missing \"]\" after the IPv6 address")
            }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = UInt16(rest.dropFirst()), value > 0 else {
                    throw IPNetworkError(value: text, reason: "port after \"]:\" must be 1-65535")
                }
                port = value
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let value = UInt16(host[host.index(after: colon)...]), value > 0 else {
                throw IPNetworkError(value: text, reason: "port after \":\" must be 1-65535")
            }
            port = value
            host = host[..<colon]
        }
        let address = try IPNetwork(parsing: String(host))
        guard address.isSingleAddress else {
            throw IPNetworkError(value: text, reason: "a DNS server must be one address, not a network")
        }
        self.init(address: address, port: port)
    }

    public var description: String {
        if port == 53 { return address.description }
        return address.family == .ipv6 ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}
