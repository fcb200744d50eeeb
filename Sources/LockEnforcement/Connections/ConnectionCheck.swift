/// What the nftables table needs to send new connections' first packets to the daemon's name
/// check, and to act on its verdicts: the queue, and the connection-mark bits it sets.
public struct ConnectionCheck: Sendable, Equatable {
    /// The NFQUEUE queue the daemon reads.
    public var queue: UInt16
    /// Mark bit: the connection's name was read and may be reached.
    public static let allowed: UInt32 = 0x0010_0000
    /// Mark bit: the connection names a blocked name; every later packet of it is reset.
    public static let refused: UInt32 = 0x0020_0000
    /// Mark bits: the connection was let go without a name read (neither TLS nor HTTP, no name,
    /// a server that speaks first). Not queued again; but where its address is, or becomes, a
    /// blocked name's, the firewall resets it, as it resets every connection to such an address
    /// that no allowed name vouches for.
    public static let unnamed: UInt32 = 0x0030_0000
    /// The bits of the connection mark the check owns (another program's bits are kept).
    public static let mask: UInt32 = 0x0030_0000
    /// Packet mark bit: the queue tables are in force. Their chain at `filter - 5` sets it on
    /// TCP packets before the main table sees them; while it is missing (the tables deleted,
    /// the daemon stopped), the main table refuses blocked names' addresses outright.
    public static let present: UInt32 = 0x0040_0000
    /// Packet mark bit: the main table let this TCP packet to a blocked name's address go on
    /// only so that the check reads its name; such packets are queued without `bypass`, and
    /// anything but an allowed name is refused.
    public static let needsName: UInt32 = 0x0080_0000
    /// Every bit of the packet mark the check uses; the queue chain clears them before a
    /// packet leaves (another program's bits are kept).
    public static let packetBits: UInt32 = mask | present | needsName
    /// The priority of the chain that sets `present`: before the main table's (`filter`).
    public static let presentPriority: Int32 = -5
    /// A connection's packets in the original direction that are queued at most while no
    /// verdict is in (the first is the SYN, which carries no name; the second, the handshake's
    /// last, only when it carries data).
    public static let queuedPackets = 2...24

    /// Creates the setting.
    public init(queue: UInt16) { self.queue = queue }
}
