import Foundation
import LockCore
import LockEnforcement
import LockPlatform
import LockProtocol
import LockStore
import Logging
import ServiceLifecycle

/// The composition root: builds every part from the paths and configuration, restores the
/// saved sessions, and runs the services until SIGTERM.
struct Daemon {
    let paths: Paths
    let logLevelOverride: String?
    /// Listening sockets passed by systemd (socket activation), taken before anything else ran.
    let inheritedSockets: [InheritedSocket]
    /// `--enforcers`: replaces the configuration's list.
    let enforcersOverride: [String]?

    func run() async throws {
        var problems: [String] = []
        var configuration = DaemonConfiguration()
        // A bad configuration file must not keep blocks from being restored at boot: run
        // with the defaults and say why.
        do { configuration = try DaemonConfiguration.load(paths.configFile) } catch { problems.append(error.description) }
        let level = Logger.Level(rawValue: logLevelOverride ?? configuration.logLevel) ?? .info
        let destination = LoggingBootstrap.bootstrap(level: level)
        var logger = Logger(label: "simplylockd")
        logger.logLevel = level
        let notifier = SystemdNotifier()
        notifier.status("restoring state")
        for problem in problems { logger.error("configuration problem; using defaults", metadata: ["problem": "\(problem)"]) }

        do { try AtomicFile.makeDirectories(paths.stateDirectory, mode: 0o755) } catch { throw DaemonStartError.system(error) }
        let lock = try InstanceLock(path: paths.stateDirectory + "/simplylockd.lock")
        defer { withExtendedLifetime(lock) {} }
        // Only now, holding the lock: another daemon's writes in flight are never taken for a crash's.
        for leftover in [paths.profilesDirectory, paths.schedulesDirectory].flatMap({ AtomicFile.removeLeftovers(in: $0) }) {
            logger.notice("removed a temporary file left by a crash", metadata: ["path": "\(leftover)"])
        }

        let store = try StateStore(path: paths.stateDatabase)
        var profiles = ProfileStore(paths: paths)
        for problem in profiles.reload() {
            logger.warning("profile problem; the file is ignored", metadata: ["problem": "\(problem)"])
        }
        logger.info("starting", metadata: ["version": "\(API.softwareVersion)", "root": "\(paths.root)",
                                           "hosts": "\(paths.hostsFile)", "profiles": "\(profiles.profiles.count)",
                                           "log": "\(destination.rawValue)", "systemd": "\(notifier.isConnected)"])

        let built = EnforcerFactory(paths: paths, configuration: configuration, logger: logger).build(override: enforcersOverride)
        for problem in built.problems { logger.error("enforcer problem", metadata: ["problem": "\(problem)"]) }
        let enforcers = built.enforcers
        if let firewall = built.firewall {
            // Addresses resolved before the restart: the firewall block is back before DNS works.
            if let known = try? store.value([String: [IPNetwork]].self, forKey: AddressBookService.stateKey) {
                await firewall.seed(known)
            }
        }
        let events = EventBus()
        let manager = BlockManager(profiles: profiles, configuration: configuration, store: store, enforcers: enforcers,
                                   events: events, logger: logger, clock: { SystemClock.now() })
        let timer = try KernelTimer(name: "session-deadline", clock: .boot) { _ in
            Task { await manager.expireDue() }
        }
        try await manager.restore()
        await manager.setTimer(timer)
        let pomodoro = PomodoroEngine(manager: manager, store: store, events: events, logger: logger, clock: { SystemClock.now() })
        let pomodoroTimer = try KernelTimer(name: "pomodoro-deadline", clock: .boot) { _ in
            Task { await pomodoro.deadlineReached() }
        }
        await pomodoro.restore()
        await pomodoro.setTimer(pomodoroTimer)
        await manager.addProfileUser { await pomodoro.uses($0) }
        let schedules = try await ScheduleService.start(paths: paths, configuration: configuration, manager: manager,
                                                        state: store, events: events, logger: logger)

        var router = APIRouter(manager: manager, events: events, authorizer: Authorizer(), paths: paths)
        router.modules.append(PomodoroRoutes(engine: pomodoro))
        router.modules.append(schedules.routes)
        router.noticeSources.append(schedules.notices)
        router.noticeSources.append { await pomodoro.notices() }
        let listener: ControlServer.Listener = inheritedSockets.first.map { .inherited(fd: $0.fileDescriptor) } ?? .path(paths.socket)
        // READY=1 once sessions are restored, enforced, and the API answers.
        let server = ControlServer(listener: listener, router: router, logger: logger) {
            Task { notifier.ready(status: await manager.serviceStatusText()) }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: EnforcerWatchService(enforcers: enforcers)),
            .init(service: CheckpointService(manager: manager, interval: configuration.checkpointInterval)),
            .init(service: PomodoroCheckpointService(engine: pomodoro, interval: configuration.checkpointInterval)),
            .init(service: ReloadSignalService(manager: manager, configurationPath: paths.configFile,
                                               notifier: notifier, logger: logger)),
            .init(service: schedules),
            .init(service: server),
            // Last, so that it is the first to hear of shutdown and sends STOPPING=1 at once.
            .init(service: SystemdService(notifier: notifier, manager: manager, events: events)),
        ]
        if let firewall = built.firewall {
            // Before the server in the list, so it saves the addresses after the server stopped.
            services.insert(.init(service: AddressBookService(firewall: firewall, store: store,
                                                              interval: configuration.checkpointInterval)), at: 1)
        }
        let group = ServiceGroup(configuration: .init(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
        timer.stop()
        pomodoroTimer.stop()
        await events.finishAll()
        logger.info("stopped")
    }
}
