import Foundation
import LockCore
import LockEnforcement
import LockPlatform
import Logging
import ServiceLifecycle

/// Meters the time each catalog app is in use: its programs running (found as the app
/// enforcer finds them) while the user's logind session is not idle, or, with no logind
/// session to consult, while they run.
///
/// Sampled by `UsageSampler`: every minute while no app runs, so an idle machine is woken
/// once a minute at most; every 10 s while one does, so an app's end is placed within that.
/// An app's start is exact whatever the interval: it is read from its
/// processes' start times. Between two samples an app that ran at both counts the whole
/// stretch, one that stopped counts half of it (the expected value; error at most half a
/// busy interval).
actor AppUsageMeter: UsageSource {
    let catalog: AppCatalogService
    let recorder: UsageRecorder
    let idle: @Sendable () -> Bool?
    let logger: Logger
    private let hasher = ContentHasher()
    private var state = State()

    /// A meter of `catalog`'s apps reporting to `recorder`.
    init(catalog: AppCatalogService, recorder: UsageRecorder, idle: (@Sendable () -> Bool?)? = nil, logger: Logger) {
        self.catalog = catalog
        self.recorder = recorder
        self.idle = idle ?? { LogindIdle().isIdle() }
        self.logger = logger
    }

    /// What the meter knows between samples.
    struct State {
        var apps: [UsageItem] = []
        var rules: ExecRules = .none
        var rulesBuilt: BootTime?
        var last: ClockReading?
        var running: Set<UsageItem> = []
        var wasIdle = false
    }

    func sample(at now: ClockReading) async -> Bool {
        await measure(at: now)
        // Idle sessions are sampled slowly too: nothing they run is counted.
        return !(state.running.isEmpty || state.wasIdle)
    }

    func finish() async {}

    /// One sample: which apps run now, and how long each was in use since the last one.
    private func measure(at now: ClockReading) async {
        // The catalog is read again every 10 minutes: an app installed since is metered from then.
        if state.rulesBuilt.map({ $0.nanoseconds > now.boot.nanoseconds || now.boot - $0 > .seconds(600) }) ?? true {
            (state.apps, state.rules) = Self.rules(for: await catalog.current())
            state.rulesBuilt = now.boot
            logger.debug("usage meter watches the catalog's apps", metadata: ["apps": "\(state.apps.count)"])
        }
        let found = RunningApps.scan(state.rules, hasher: hasher)
        let idleNow = idle()
        let meter: UsageMeter = idleNow == nil ? .appsRunning : .appsActive
        let running = Set(found.keys.map { state.apps[$0] })
        var inUse: [UsageItem: Duration] = [:]
        if let last = state.last, last.bootID == now.bootID, idleNow != true {
            let stretch = now.boot - last.boot
            for (index, started) in found {
                let item = state.apps[index]
                // Seen last time: the whole stretch (half when the session was idle then: when
                // the user came back is not known); new: since its earliest process started.
                inUse[item] =
                    state.running.contains(item)
                    ? (state.wasIdle ? stretch / 2 : stretch) : min(stretch, max(.zero, now.boot - started))
            }
            if !state.wasIdle { for item in state.running.subtracting(running) { inUse[item] = stretch / 2 } }
        }
        if running != state.running {
            logger.debug(
                "apps in use changed",
                metadata: ["running": "\(running.map(\.name).sorted())", "idle": "\(idleNow.map(String.init) ?? "unknown")"])
        }
        state.last = now
        state.running = running
        state.wasIdle = idleNow == true
        let samples = inUse.filter { $0.value > .zero }.map {
            UsageSample(item: $0.key, meter: meter, end: now.wall, seconds: $0.value.seconds)
        }
        await recorder.report(samples, inUse: inUse.filter { $0.value > .zero }, at: now)
    }

    /// Every catalog app with programs, as the enforcer would block it, and the items they
    /// are metered as (with their main category).
    static func rules(for catalog: AppCatalog) -> ([UsageItem], ExecRules) {
        var items: [UsageItem] = []
        var blocked: [BlockedApp] = []
        for app in catalog.apps {
            guard let entry = try? app.blocked() else { continue }
            items.append(UsageItem(.app, app.id, category: mainCategory(app.categories)))
            blocked.append(entry)
        }
        // `resolve` keeps one rule per app, in the order given: rule indexes are `items` indexes.
        return (items, ExecRules.resolve(blocked, hasher: ContentHasher(), userWritable: []))
    }

    /// The first main category an app names, or that an additional one it names belongs to.
    static func mainCategory(_ categories: [String]) -> String? {
        if let main = categories.first(where: AppCategory.main.contains) { return main }
        return categories.lazy.compactMap { AppCategory.additional[$0]?.first }.first
    }
}
