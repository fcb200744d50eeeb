import Foundation
import LockCore
import LockEnforcement
import Logging
import ServiceLifecycle

/// Meters the time each LAN device group is online (`UsageMeter.lanDNS`) from the queries its
/// devices send the LAN's Unbound, read from Unbound's log (`log-queries: yes` and `logfile:`,
/// the log the unbound enforcer already reads for blocked attempts). A group is in use from a
/// sampling stretch in which one of its devices asked until a minute after (`QueryActivity`):
/// a console or TV in use asks for names every few seconds to minutes; one idle in standby
/// that still asks now and then is counted as in use for those minutes.
///
/// Sampling: every `idleInterval` (a minute) while no group is in use, every `busyInterval`
/// (10 s) while one is.
public struct GroupUsageMeter: ServiceLifecycle.Service {
    let unbound: UnboundEnforcer
    let recorder: UsageRecorder
    let clock: @Sendable () -> ClockReading
    let idleInterval: Duration
    let busyInterval: Duration
    let keepAlive: Duration

    /// A meter of `unbound`'s logged queries reporting to `recorder`.
    public init(
        unbound: UnboundEnforcer, recorder: UsageRecorder, clock: @escaping @Sendable () -> ClockReading,
        idleInterval: Duration = .seconds(60), busyInterval: Duration = .seconds(10), keepAlive: Duration = .seconds(60)
    ) {
        self.unbound = unbound
        self.recorder = recorder
        self.clock = clock
        self.idleInterval = idleInterval
        self.busyInterval = busyInterval
        self.keepAlive = keepAlive
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var activity = QueryActivity(keepAlive: keepAlive)
            while !Task.isCancelled {
                let now = clock()
                let inUse = activity.observe(await unbound.takeGroupQueries(), at: now)
                await recorder.report(inUse, kind: .group, meter: .lanDNS, at: now)
                try await Task.sleep(for: activity.isActive ? busyInterval : idleInterval)
            }
        }
        await recorder.flush()
    }
}
