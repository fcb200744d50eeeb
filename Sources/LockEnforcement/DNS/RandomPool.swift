import CLinux

/// Unpredictable 16-bit numbers (DNS query IDs, socket choice) from the kernel's generator, a
/// few thousand per `getrandom` call: Swift's `SystemRandomNumberGenerator` makes one system
/// call per number, which on the forwarder's hot path costs more than the rest of a query.
struct RandomPool {
    private var values = [UInt16](repeating: 0, count: 4096)
    private var next = 4096

    mutating func uint16() -> UInt16 {
        if next == values.count { refill() }
        defer { next += 1 }
        return values[next]
    }

    /// A number below `bound` (a small bound; the bias of the modulo is negligible for it).
    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(uint16()) % bound }

    private mutating func refill() {
        let filled = values.withUnsafeMutableBytes { getrandom($0.baseAddress, $0.count, 0) }
        if filled != values.count * 2 {
            // getrandom only fails before the kernel's pool is initialised; never fall back to
            // predictable IDs.
            var generator = SystemRandomNumberGenerator()
            for index in values.indices { values[index] = UInt16.random(in: .min ... .max, using: &generator) }
        }
        next = 0
    }
}
