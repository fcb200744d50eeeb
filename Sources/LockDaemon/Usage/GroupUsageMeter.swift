import Foundation
import LockCore
import LockEnforcement
import Logging

/// Meters the time each LAN device group is online (`UsageMeter.lanDNS`) from the queries its
/// devices send the LAN's Unbound, read from Unbound's log (`log-queries: yes` and `logfile:`,
/// the log the unbound enforcer already reads for blocked attempts). A group is in use from a
/// sampling stretch in which one of its devices asked until a minute after (`QueryActivity`):
/// a console or TV in use asks for names every few seconds to minutes; one idle in standby
/// that still asks now and then is counted as in use for those minutes.
///
/// Sampled by `UsageSampler`: every minute while no group is in use, every 10 s while one is.
actor GroupUsageMeter: UsageSource {
    let unbound: UnboundEnforcer
    let recorder: UsageRecorder
    private var activity: QueryActivity

    /// A meter of `unbound`'s logged queries reporting to `recorder`.
    init(unbound: UnboundEnforcer, recorder: UsageRecorder, keepAlive: Duration = .seconds(60)) {
        self.unbound = unbound
        self.recorder = recorder
        self.activity = QueryActivity(keepAlive: keepAlive)
    }

    func sample(at now: ClockReading) async -> Bool {
        let inUse = activity.observe(await unbound.takeGroupQueries(), at: now)
        await recorder.report(inUse, kind: .group, meter: .lanDNS, at: now)
        return activity.isActive
    }

    func finish() async {}
}
