import Foundation
import LockCore
import LockEnforcement
import LockNames
import LockStore
import Logging

/// Every domain service of the daemon, wired once. The daemon builds one at start-up; tests
/// build one with fake enforcers, a manual clock and recording timers, and drive the same
/// services and the same route table in-process.
public struct DaemonCore: Sendable {
    /// The timers the services arm; kernel timers in the daemon, recorders in tests.
    public struct Timers: Sendable {
        /// Wakes the session service at the next session end.
        public var sessions: any DeadlineTimer
        /// Wakes the Pomodoro engine at the next phase end.
        public var pomodoro: any DeadlineTimer
        /// Wakes the scheduler at the next edge or warning.
        public var schedules: any WallClockTimer

        /// Groups the timers.
        public init(sessions: any DeadlineTimer, pomodoro: any DeadlineTimer, schedules: any WallClockTimer) {
            self.sessions = sessions
            self.pomodoro = pomodoro
            self.schedules = schedules
        }
    }

    /// Files and directories.
    public let paths: Paths
    /// Reads the names people type (UTS 46, URLs, public suffixes).
    public let names: DomainNameParser
    /// Profiles and the service catalog.
    public let profiles: ProfileService
    /// Imported blocklists.
    public let lists: ListService
    /// The installed applications.
    public let apps: AppCatalogService
    /// The active sessions.
    public let sessions: SessionService
    /// Schedules.
    public let scheduler: Scheduler
    /// The Pomodoro timer.
    public let pomodoro: PomodoroEngine
    /// Profile changes and reloads that concern several services.
    public let coordinator: Coordinator
    /// Status, check, history and doctor.
    public let reporter: Reporter
    /// The enforcers.
    public let enforcement: Enforcement
    /// Events for the API and systemd.
    public let events: EventBus
    /// The state database.
    public let store: StateStore
    /// Focus time, goals, streaks and blocked attempts.
    public let insights: InsightsService
    /// Ending strict blocks early, with friction.
    public let emergency: EmergencyAccess
    /// Where enforcers hand their blocked attempts.
    public let attemptInbox: AttemptInbox
    /// Saves and publishes blocked attempts (a service of the group).
    let attempts: AttemptRecorder
    /// The wall clock and boot clock.
    public let clock: @Sendable () -> ClockReading
    /// The system's time zone (it can change while the daemon runs).
    public let zone: @Sendable () -> TimeZone
    /// Where the usage meters report.
    public let usage: UsageRecorder
    /// The allowances and the blocks they own.
    public let allowances: AllowanceOwner
    /// The browser companions: their hellos and their site meter.
    public let browser: BrowserCompanionService

    /// Builds every service and brings it to the saved state: sessions restored and enforced,
    /// the Pomodoro run caught up, schedules evaluated. Nothing is served yet.
    public static func start(
        paths: Paths, configuration: DaemonConfiguration.Loaded, profiles profileStore: ProfileStore,
        enforcers: [any Enforcer], store: StateStore, timers: Timers, logger: Logger,
        clock: @escaping @Sendable () -> ClockReading, zone: @escaping @Sendable () -> TimeZone,
        makeID: (@Sendable () -> String)? = nil, apps: AppCatalogService? = nil,
        firewallUnavailable: @escaping @Sendable () -> String? = { nil },
        connectionCheckUnavailable: @escaping @Sendable () -> String? = { nil },
        library: BlocklistLibrary = BlocklistLibrary(), listProblems: [FileProblem] = [],
        caches: ResolverCacheFlusher? = nil, launch: DaemonLaunch = DaemonLaunch(),
        attemptInbox: AttemptInbox? = nil, launchInbox: LaunchInbox? = nil,
        randomness: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) async throws -> DaemonCore {
        let settings = configuration.configuration
        let events = EventBus()
        let enforcement = Enforcement(enforcers: enforcers, caches: caches, logger: logger)
        let apps =
            apps
            ?? AppCatalogService(
                roots: AppCatalogService.roots(
                    paths: paths,
                    extraDataDirectories: settings.apps.dataDirectories))
        let lists = ListService(
            store: BlocklistStore(directory: paths.listsDirectory), library: library, problems: listProblems,
            names: profileStore.names, logger: logger, clock: clock)
        let profiles = ProfileService(store: profileStore, apps: apps, logger: logger, lists: library.currentResolver)
        let makeID = makeID ?? { SessionService.randomID() }
        let sessions = SessionService(
            profiles: profiles, store: store, enforcement: enforcement, events: events,
            timer: timers.sessions, maxSession: settings.maxSession, logger: logger, clock: clock,
            targets: TargetPolicy(
                configuration: settings, enforcers: enforcers.map(\.name),
                configFile: paths.configFile, scratchRoot: paths.root != "/"),
            makeID: makeID, lists: library.resolver, friction: settings.friction)
        try await sessions.restore()
        let pomodoro = PomodoroEngine(
            sessions: sessions, profiles: profiles, store: store, events: events, timer: timers.pomodoro,
            defaults: settings.pomodoro, logger: logger, clock: clock, makeID: makeID)
        await pomodoro.restore()
        let scheduler = Scheduler(
            store: ScheduleStore(directory: paths.schedulesDirectory), sessions: sessions, profiles: profiles,
            state: store, events: events, timer: timers.schedules, logger: logger, clock: clock,
            systemZone: zone, defaultWarning: settings.scheduleWarning)
        await scheduler.start()
        // Every session owner, asked together at every reconciliation from here on: what
        // changes at one instant is one batch. A new kind of owner is added here.
        await sessions.register([pomodoro, scheduler])
        let emergency = EmergencyAccess(
            sessions: sessions, profiles: profiles, store: store, friction: settings.friction, clock: clock, logger: logger,
            generator: randomness)
        let coordinator = Coordinator(
            profiles: profiles, sessions: sessions, scheduler: scheduler, pomodoro: pomodoro, emergency: emergency, lists: lists,
            events: events, apps: apps, configuration: configuration, paths: paths, logger: logger, clock: clock)
        // Versions only blocks that ended while the daemon was down still held.
        await coordinator.collectUnusedLists()
        let reporter = Reporter(
            sessions: sessions, enforcement: enforcement, scheduler: scheduler, pomodoro: pomodoro,
            profiles: profiles, apps: apps, coordinator: coordinator, lists: lists, store: store, paths: paths,
            firewallUnavailable: firewallUnavailable, connectionCheckUnavailable: connectionCheckUnavailable, clock: clock,
            launch: launch, zone: zone)
        let insights = InsightsService(store: store, emergency: emergency, clock: clock, zone: zone)
        let inbox = attemptInbox ?? AttemptInbox(clock: clock)
        let attempts = AttemptRecorder(inbox: inbox, sessions: sessions, store: store, events: events, logger: logger, clock: clock)
        let usage = UsageRecorder(store: store, logger: logger)
        let allowances = AllowanceOwner(
            directory: paths.allowancesDirectory, state: store, sessions: sessions, profiles: profiles, events: events,
            clock: clock, zone: zone, logger: logger)
        await sessions.register([allowances])
        launchInbox?.bind(to: allowances)
        await allowances.start()
        await usage.listen { inUse, now in await allowances.meter(inUse, at: now) }
        await coordinator.setAllowances(allowances)
        return DaemonCore(
            paths: paths, names: profileStore.names, profiles: profiles, lists: lists, apps: apps, sessions: sessions,
            scheduler: scheduler, pomodoro: pomodoro,
            coordinator: coordinator, reporter: reporter, enforcement: enforcement, events: events, store: store,
            insights: insights, emergency: emergency, attemptInbox: inbox, attempts: attempts,
            clock: clock, zone: zone, usage: usage, allowances: allowances,
            browser: BrowserCompanionService(recorder: usage, profiles: profiles, names: profileStore.names, clock: clock))
    }

    /// The control API's route table over these services.
    func router(authorizer: Authorizer = Authorizer()) -> Router {
        let clock = self.clock
        let zone = self.zone
        var router = Router(authorizer: authorizer) { ErrorMapping(now: clock(), zone: zone()) }
        SessionRoutes(core: self).register(in: &router)
        ProfileRoutes(core: self).register(in: &router)
        ScheduleRoutes(core: self).register(in: &router)
        PomodoroRoutes(core: self).register(in: &router)
        SystemRoutes(core: self).register(in: &router)
        ListRoutes(core: self).register(in: &router)
        AppRoutes(core: self).register(in: &router)
        CatalogRoutes(core: self).register(in: &router)
        InsightsRoutes(core: self).register(in: &router)
        UsageRoutes(core: self).register(in: &router)
        AllowanceRoutes(core: self).register(in: &router)
        EmergencyRoutes(core: self).register(in: &router)
        BrowserRoutes(core: self).register(in: &router)
        return router
    }
}
