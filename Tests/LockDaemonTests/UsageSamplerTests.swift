import Foundation
import LockCore
import LockPlatform
import LockStore
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import LockDaemon

/// One sampler drives every usage meter: all of them at the same aligned instants, a minute
/// apart while nothing is in use.
@Suite("The usage sampler")
struct UsageSamplerTests {
    @Test func wakeUpsFallOnTheNextMultipleOfTheInterval() {
        let minute = Duration.seconds(60)
        #expect(UsageSampler.pause(at: Date(timeIntervalSince1970: 1_800_000_015), every: minute) == .seconds(45))
        #expect(UsageSampler.pause(at: Date(timeIntervalSince1970: 1_800_000_059), every: minute) == .seconds(1))
        #expect(
            UsageSampler.pause(at: Date(timeIntervalSince1970: 1_800_000_000.2), every: minute) == .milliseconds(59_800),
            "just after a boundary: the rest of the minute")
        #expect(
            UsageSampler.pause(at: Date(timeIntervalSince1970: 1_799_999_999.9), every: minute) == .milliseconds(60_100),
            "a wake-up a little early is not followed by another at once")
        #expect(UsageSampler.pause(at: Date(timeIntervalSince1970: 1_800_000_003), every: .seconds(10)) == .seconds(7))
    }

    @Test func theIntervalsComeFromTheEnvironmentWithinBounds() {
        func intervals(_ given: String?) -> [Duration] {
            let (idle, busy) = UsageSampler.intervals(environment: given.map { ["SIMPLYLOCK_USAGE_SAMPLE": $0] } ?? [:])
            return [idle, busy]
        }
        #expect(intervals(nil) == [.seconds(60), .seconds(10)])
        #expect(intervals("1,0.5") == [.seconds(1), .milliseconds(500)])
        #expect(intervals("0,1") == [.seconds(60), .seconds(10)], "out of bounds: the defaults")
    }

    /// Records the instants it was sampled at.
    final class Probe: UsageSource {
        let busy: Bool
        let instants = Mutex<[ClockReading]>([])
        let finished = Mutex(false)
        init(busy: Bool) { self.busy = busy }
        func sample(at now: ClockReading) async -> Bool {
            instants.withLock { $0.append(now) }
            return busy
        }
        func finish() async { finished.withLock { $0 = true } }
    }

    @Test func everyMeterIsSampledInTheSameWakeUpAndFinishedAtShutdown() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        let recorder = UsageRecorder(store: try StateStore(path: scratch.paths.stateDatabase), logger: Logger(label: "test"))
        let (idle, busy) = (Probe(busy: false), Probe(busy: true))
        let sampler = UsageSampler(
            meters: [idle, busy], recorder: recorder, clock: { SystemClock.now() }, idleInterval: .seconds(1),
            busyInterval: .milliseconds(200))
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: sampler)], gracefulShutdownSignals: [],
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Until the busy meter was sampled 5 times, counted in turns rather than time: other
            // tests' blocking calls can hold every thread of the pool for many seconds.
            for _ in 0..<1000 where busy.instants.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(20)) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let seen = idle.instants.withLock { $0 }
        #expect(seen == busy.instants.withLock { $0 }, "one wake-up samples every meter, with the same reading")
        // A meter in use brings every meter back at the busy interval (0.2 s, not the idle 1 s).
        #expect(seen.count >= 5, "\(seen.count) samples")
        #expect(idle.finished.withLock { $0 } && busy.finished.withLock { $0 })
    }
}
