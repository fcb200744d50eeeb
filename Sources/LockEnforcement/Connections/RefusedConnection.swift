#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A new connection the connection check refused, as insights record it.
public struct RefusedConnection: Sendable, Equatable {
    /// The name it asked for (TLS SNI, HTTP Host).
    public var name: String
    /// The rule that blocks the name.
    public var rule: String
    /// The address it went to.
    public var address: String

    /// Creates a record.
    public init(name: String, rule: String, address: String) {
        self.name = name
        self.rule = rule
        self.address = address
    }

    /// An IPv4 or IPv6 address's text.
    static func text(of address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        guard address.count == 4 || address.count == 16, inet_ntop(family, address, &buffer, socklen_t(buffer.count)) != nil else {
            return ""
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// At most `perSecond` reports a second reach insights, as the firewall's NFLOG rule allows its
/// attempts (`limit rate`); the enforcer's own counter counts every refusal.
struct ReportLimit {
    let perSecond: Int
    private var second: UInt64 = 0
    private var sent = 0

    init(perSecond: Int) { self.perSecond = perSecond }

    /// Whether one more report may go out at `now` (nanoseconds).
    mutating func admit(now: UInt64) -> Bool {
        if now / 1_000_000_000 != second {
            second = now / 1_000_000_000
            sent = 0
        }
        guard sent < perSecond else { return false }
        sent += 1
        return true
    }
}
