/// What the nftables table needs to send new connections' first packets to the daemon's name
/// check, and to act on its verdicts: the queue, and the connection-mark bits it sets.
public struct ConnectionCheck: Sendable, Equatable {
    /// The NFQUEUE queue the daemon reads.
    public var queue: UInt16
    /// Mark bit: the connection's name was read and may be reached.
    public static let allowed: UInt32 = 0x0010_0000
    /// Mark bit: the connection names a blocked name; every later packet of it is reset.
    public static let refused: UInt32 = 0x0020_0000
    /// The bits of the connection mark the check owns (another program's bits are kept).
    public static let mask: UInt32 = 0x0030_0000
    /// A connection's packets in the original direction that are queued at most while no
    /// verdict is in (the first is the SYN, which carries no name; the second, the handshake's
    /// last, only when it carries data).
    public static let queuedPackets = 2...24

    /// Creates the setting.
    public init(queue: UInt16) { self.queue = queue }
}
