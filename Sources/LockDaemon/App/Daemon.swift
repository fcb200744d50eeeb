import CLinux
import Foundation
import LockCore
import LockEnforcement
import LockNames
import LockPlatform
import LockProtocol
import LockStore
import Logging
import ServiceLifecycle

/// The composition root: builds every part from the paths and configuration, restores the
/// saved state, and runs the services until SIGTERM.
struct Daemon {
    let paths: Paths
    let logLevelOverride: String?
    /// Listening sockets passed by systemd (socket activation), taken before anything else ran.
    let inheritedSockets: [InheritedSocket]
    /// `--enforcers`: replaces the configuration's list.
    let enforcersOverride: [String]?

    func run() async throws {
        // A bad key must not keep blocks from being restored at boot: the valid keys are used
        // and every problem is logged.
        let configuration = DaemonConfiguration.load(paths.configFile)
        let settings = configuration.configuration
        let level = Logger.Level(rawValue: logLevelOverride ?? settings.logLevel) ?? .info
        let destination = LoggingBootstrap.bootstrap(level: level)
        var logger = Logger(label: "simplylockd")
        logger.logLevel = level
        let notifier = SystemdNotifier()
        notifier.status("restoring state")
        for problem in configuration.problems {
            logger.error("configuration problem; that setting keeps its default", metadata: ["problem": "\(problem)"])
        }
        let openFiles = Int(clinux_raise_nofile(65_536))

        do { try AtomicFile.makeDirectories(paths.stateDirectory, mode: 0o755) } catch { throw DaemonStartError.system(error) }
        let lock = try InstanceLock(path: paths.stateDirectory + "/simplylockd.lock")
        defer { withExtendedLifetime(lock) {} }
        // Only now, holding the lock: another daemon's writes in flight are never taken for a crash's.
        for leftover in [paths.profilesDirectory, paths.schedulesDirectory, paths.stateDirectory, paths.listsDirectory]
            .flatMap({ AtomicFile.removeLeftovers(in: $0) })
        {
            logger.notice("removed a temporary file left by a crash", metadata: ["path": "\(leftover)"])
        }

        let store = try StateStore(path: paths.stateDatabase)
        if let reason = store.readOnlyReason {
            logger.critical(
                "the state database can only be read: saved blocks are enforced, but no change can be saved",
                metadata: ["database": "\(paths.stateDatabase)", "reason": "\(reason)"])
        }
        // One parser for the daemon's life: loading the public suffix list costs more than a request.
        let names = DomainNameParser.system()
        if let problem = names.problem { logger.warning("public suffixes cannot be refused", metadata: ["problem": "\(problem)"]) }
        var profiles = ProfileStore(paths: paths, names: names.parser)
        for problem in profiles.reload() {
            logger.warning("profile problem; the file is ignored", metadata: ["problem": "\(problem)"])
        }
        logger.info(
            "starting",
            metadata: [
                "version": "\(API.softwareVersion)", "root": "\(paths.root)",
                "hosts": "\(paths.hostsFile)", "profiles": "\(profiles.profiles.count)",
                "log": "\(destination.rawValue)", "systemd": "\(notifier.isConnected)",
                "openFiles": "\(openFiles)",
            ])

        // Before the enforcers: the dns enforcer reads the same loaded lists the sessions hold.
        let (library, listProblems) = ListService.load(BlocklistStore(directory: paths.listsDirectory), logger: logger)
        // Before the enforcers too: their callbacks hand blocked attempts to it from the start.
        let attemptInbox = AttemptInbox(clock: { SystemClock.now() })
        let launchInbox = LaunchInbox()
        let factory = EnforcerFactory(
            paths: paths, configuration: settings, logger: logger, attempts: attemptInbox, launches: launchInbox, library: library)
        let built = factory.build(override: enforcersOverride)
        let caches = factory.flushesResolverCaches(override: enforcersOverride) ? ResolverCacheFlusher.machine(logger: logger) : nil
        for problem in built.problems { logger.error("enforcer problem", metadata: ["problem": "\(problem)"]) }
        if let firewall = built.firewall {
            // Addresses resolved before the restart: the firewall block is back before DNS works.
            if let known = try? store.value([String: [IPNetwork]].self, forKey: AddressBookService.stateKey) {
                await firewall.seed(known)
            }
        }
        let sessionTimer = try TimerFeed(name: "session-deadline", clock: .boot)
        let pomodoroTimer = try TimerFeed(name: "pomodoro-deadline", clock: .boot)
        let scheduleTimer = try TimerFeed(name: "schedule-edges", clock: .wall, cancelOnClockChange: true)
        let root = paths.root
        let core = try await DaemonCore.start(
            paths: paths, configuration: configuration, profiles: profiles, enforcers: built.enforcers, store: store,
            timers: .init(sessions: sessionTimer.timer, pomodoro: pomodoroTimer.timer, schedules: scheduleTimer.timer),
            logger: logger, clock: { SystemClock.now() }, zone: { SystemTimeZone.current(root: root) },
            firewallUnavailable: { EnforcerFactory.firewallUnavailable() },
            connectionCheckUnavailable: { ConnectionNameEnforcer.queueUnavailable() }, library: library, listProblems: listProblems,
            caches: caches, launch: .current(enforcersOverride: enforcersOverride, root: root), attemptInbox: attemptInbox,
            launchInbox: launchInbox)
        let zoneWatch = FileChangeFeed(path: SystemTimeZone.localtimePath(root: root))
        if let problem = zoneWatch.problem {
            logger.warning("cannot watch for time-zone changes; they are noticed at the next edge", metadata: ["error": "\(problem)"])
        }

        let listener: ControlServer.Listener = inheritedSockets.first.map { .inherited(fd: $0.fileDescriptor) } ?? .path(paths.socket)
        let reporter = core.reporter
        let coordinator = core.coordinator
        // READY=1 once sessions are restored, enforced, and the API answers.
        let server = ControlServer(
            listener: listener, router: core.router(), events: core.events,
            limits: .fitting(openFiles: openFiles > 0 ? openFiles : 1024), logger: logger
        ) {
            notifier.ready(status: await reporter.serviceStatusText())
        }
        let interval = settings.checkpointInterval
        let (idleSample, busySample) = UsageSampler.intervals()
        let retentionService = await retention(store: store, coordinator: coordinator, logger: logger)
        // Each enforcer a service of its own, first, so that they stop last, in reverse order.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = built.enforcers.map {
            .init(service: EnforcerService(enforcer: $0))
        }
        services += [
            .init(
                service: SessionClockService(
                    sessions: core.sessions, deadlines: sessionTimer, interval: interval,
                    afterward: { [coordinator = core.coordinator] in await coordinator.collectUnusedLists() })),
            .init(service: PomodoroClockService(engine: core.pomodoro, deadlines: pomodoroTimer, interval: interval)),
            .init(service: ReloadSignalService(coordinator: core.coordinator, reporter: reporter, notifier: notifier, logger: logger)),
            .init(service: ScheduleService(scheduler: core.scheduler, edges: scheduleTimer, zone: zoneWatch)),
            .init(service: core.attempts),
            .init(service: launchInbox),
            .init(service: retentionService),
            .init(service: MemoryTrimService(events: core.events)),
            // Ends the event streams itself at shutdown, after it stops taking connections.
            .init(service: server),
            // Last, so that it is the first to hear of shutdown and sends STOPPING=1 at once.
            .init(
                service: SystemdService(
                    notifier: notifier, sessions: core.sessions, reporter: reporter, events: core.events,
                    execGuardAnswers: { [apps = built.apps] in apps?.isAnswering(within: SystemdService.execGuardSilence) ?? true })),
        ]
        // One sampler for every meter, so an idle daemon wakes once a minute for all of them.
        var meters: [any UsageSource] = [AppUsageMeter(catalog: core.apps, recorder: core.usage, logger: logger)]
        if let dns = built.dns {
            meters.append(
                SiteUsageMeter(
                    dns: dns, firewall: built.firewall, profiles: core.profiles, allowances: core.allowances, recorder: core.usage,
                    namesInterval: idleSample, logger: logger))
        }
        if let unbound = built.unbound { meters.append(GroupUsageMeter(unbound: unbound, recorder: core.usage)) }
        // After the enforcers, so that it stops first and the site meter lets go of the DNS redirect.
        services.insert(
            .init(
                service: UsageSampler(
                    meters: meters, recorder: core.usage, clock: { SystemClock.now() }, idleInterval: idleSample, busyInterval: busySample)),
            at: built.enforcers.count)
        if let firewall = built.firewall {
            // Before the server in the list, so it saves the addresses after the server stopped
            // (and before the firewall stops).
            services.insert(
                .init(service: AddressBookService(firewall: firewall, store: store, interval: interval)), at: built.enforcers.count + 1)
        }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        logger.info("stopped")
    }

    /// Blocked attempts and usage both keep `[insights] retention`: pruned in one hourly loop.
    private func retention(store: StateStore, coordinator: Coordinator, logger: Logger) async -> RetentionService {
        let setting = RetentionSetting(await coordinator.currentConfiguration.attemptRetention)
        await coordinator.setRetention(setting)
        let attempts = AttemptPruner(store: store, clock: { SystemClock.now() }, logger: logger)
        let usage = UsagePruner(store: store, clock: { SystemClock.now() }, logger: logger)
        return RetentionService(
            interval: .seconds(3600), setting: setting, prunes: [{ attempts.prune(keeping: $0) }, { usage.prune(keeping: $0) }])
    }
}
