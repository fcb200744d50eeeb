import Foundation
import LockCore
import ServiceLifecycle

/// A usage meter the sampler drives.
protocol UsageSource: Sendable {
    /// Takes one sample as of `now` and reports it; true while something is in use, so that
    /// the next sample comes sooner.
    func sample(at now: ClockReading) async -> Bool
    /// At shutdown, before the recorder saves what is pending.
    func finish() async
}

/// Drives every usage meter (apps, sites, LAN groups) from one loop, so that an idle daemon is
/// woken once per `idleInterval` (a minute) for all of them rather than once per meter at
/// unrelated instants: samples fall on multiples of the interval on the wall clock (the
/// minute boundary), every meter in the same wake-up. While any meter sees something in use,
/// every `busyInterval` (10 s), also aligned.
struct UsageSampler: ServiceLifecycle.Service {
    let meters: [any UsageSource]
    let recorder: UsageRecorder
    let clock: @Sendable () -> ClockReading
    let idleInterval: Duration
    let busyInterval: Duration

    /// The sampling intervals: a minute idle, 10 s busy; tests shorten them with
    /// `SIMPLYLOCK_USAGE_SAMPLE=IDLE,BUSY` (seconds, each 0.1–600).
    static func intervals(environment: [String: String] = ProcessInfo.processInfo.environment) -> (Duration, Duration) {
        let given = (environment["SIMPLYLOCK_USAGE_SAMPLE"] ?? "").split(separator: ",").compactMap { Double($0) }
        guard given.count == 2, given.allSatisfy({ (0.1...600).contains($0) }) else { return (.seconds(60), .seconds(10)) }
        return (.milliseconds(Int64(given[0] * 1000)), .milliseconds(Int64(given[1] * 1000)))
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let now = clock()
                var busy = false
                for meter in meters where await meter.sample(at: now) { busy = true }
                try await Task.sleep(for: Self.pause(at: now.wall, every: busy ? busyInterval : idleInterval))
            }
        }
        for meter in meters { await meter.finish() }
        await recorder.flush()
    }

    /// How long until the next multiple of `interval` on the wall clock after `wall` (a whole
    /// interval when that is under a hundredth of one away: a wake-up a little early is not
    /// followed by a second one at once).
    static func pause(at wall: Date, every interval: Duration) -> Duration {
        let step = max(interval.seconds, 0.001)
        let now = wall.timeIntervalSince1970
        var left = ((now / step).rounded(.down) + 1) * step - now
        if left < step / 100 { left += step }
        return .milliseconds(Int64((left * 1000).rounded(.up)))
    }
}
