import NIOCore

/// The forwarding engine's timeouts (every try waits the same time, so one queue in deadline
/// order and one timer suffice) and the keys under which answers are cached.
extension DNSForwardingEngine {
    func armTimer() {
        guard timer == nil, let first = timeouts.first else { return }
        timer = eventLoop.assumeIsolated().scheduleTask(deadline: first.deadline) { [self] in
            timer = nil
            expireTimeouts()
        }
    }

    /// Every try has the same timeout, so the queue is in deadline order.
    private func expireTimeouts() {
        let now = NIODeadline.now()
        while let first = timeouts.first, first.deadline <= now {
            timeouts.removeFirst()
            guard let entry = pending[first.key], entry.serial == first.serial else { continue }
            pending[first.key] = nil
            statistics.upstreamTimeouts += 1
            let servers = shared.servers.withLock { $0.count }
            if !entry.original, servers > 0, preferredServer % servers == entry.serverIndex { preferredServer = entry.serverIndex + 1 }
            nextTry(entry, after: "timeout")
        }
        armTimer()
        flush()
    }

    /// A server's address and port as a cache key suffix.
    static func serverKey(_ address: NIOCore.SocketAddress) -> [UInt8] {
        switch address {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { Array($0) } + withUnsafeBytes(of: v4.address.sin_port) { Array($0) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) } + withUnsafeBytes(of: v6.address.sin6_port) { Array($0) }
        default: [0xff]
        }
    }
}
