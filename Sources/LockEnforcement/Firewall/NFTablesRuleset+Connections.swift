extension NFTablesRuleset {
    /// The rules of the connection-time name check (`ConnectionNameEnforcer`), early in the
    /// `enforce` chain; empty without a check.
    ///
    /// A connection the daemon refused is reset on every packet (its verdict hands the packet
    /// back with the refused mark, so the reset goes out at once). Until a connection has a
    /// verdict, its first packets in the original direction are queued to the daemon; with
    /// `bypass`, a queue nobody reads (the daemon gone) lets them through instead of dropping
    /// them. HTTP/3 is refused, because QUIC hides the name from a single packet's reading;
    /// browsers then use TCP.
    var connectionCheckRules: String {
        guard let check = connectionCheck else { return "" }
        let mask = hex(ConnectionCheck.mask)
        let packets = ConnectionCheck.queuedPackets
        return """
            \t\tmeta l4proto tcp ct mark & \(mask) == \(hex(ConnectionCheck.refused)) reject with tcp reset
            \t\tmeta l4proto udp th dport 443 reject with icmpx admin-prohibited
            \t\tmeta l4proto tcp ct direction original ct mark & \(mask) == 0x0 ct original packets \(packets.lowerBound)-\(packets.upperBound) \
            queue num \(check.queue) bypass

            """
    }

    private func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}
