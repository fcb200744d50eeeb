import LockPlatform

/// A kernel timer and the stream of its firings. The timer's own thread only hands firings
/// over; the service that owns the stream does the work, inside the service group.
struct TimerFeed: Sendable {
    /// The timer, to be armed by whoever decides when to wake.
    let timer: KernelTimer
    /// Its firings, for the service that reacts to them.
    let firings: AsyncStream<KernelTimer.Firing>

    init(name: String, clock: KernelTimer.Clock, cancelOnClockChange: Bool = false) throws {
        let (stream, continuation) = AsyncStream.makeStream(of: KernelTimer.Firing.self, bufferingPolicy: .bufferingNewest(1))
        timer = try KernelTimer(name: name, clock: clock, cancelOnClockChange: cancelOnClockChange) { continuation.yield($0) }
        firings = stream
    }
}
