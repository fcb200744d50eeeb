/// Where the nftables table sends the machine's DNS while a block is active: the DNS filter's
/// port on loopback, and the mark its own upstream queries carry (they pass unredirected).
public struct DNSRedirect: Sendable, Equatable {
    /// The forwarder's port on 127.0.0.1 and ::1.
    public var port: UInt16
    /// `SO_MARK` of the forwarder's upstream sockets; nil when they carry none.
    public var mark: UInt32?
    /// Whether the redirect stays while nothing is blocked, so that the DNS filter sees the
    /// queries the site meter counts (set while an allowance meters sites).
    public var metering: Bool

    /// Creates a redirect.
    public init(port: UInt16, mark: UInt32?, metering: Bool = false) {
        self.port = port
        self.mark = mark
        self.metering = metering
    }
}
