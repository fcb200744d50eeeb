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

    func run() async throws {
        var problems: [String] = []
        var configuration = DaemonConfiguration()
        // A bad configuration file must not keep blocks from being restored at boot: run
        // with the defaults and say why.
        do { configuration = try DaemonConfiguration.load(paths.configFile) } catch { problems.append(error.description) }
        let level = Logger.Level(rawValue: logLevelOverride ?? configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "simplylockd")
        logger.logLevel = level
        for problem in problems { logger.error("configuration problem; using defaults", metadata: ["problem": "\(problem)"]) }

        do { try AtomicFile.makeDirectories(paths.stateDirectory, mode: 0o755) } catch { throw DaemonStartError.system(error) }
        let lock = try InstanceLock(path: paths.stateDirectory + "/simplylockd.lock")
        defer { withExtendedLifetime(lock) {} }

        let store = try StateStore(path: paths.stateDatabase)
        var profiles = ProfileStore(paths: paths)
        for problem in profiles.reload() {
            logger.warning("profile problem; the file is ignored", metadata: ["problem": "\(problem)"])
        }
        logger.info("starting", metadata: ["version": "\(API.softwareVersion)", "root": "\(paths.root)",
                                           "hosts": "\(paths.hostsFile)", "profiles": "\(profiles.profiles.count)"])

        var enforcers: [any Enforcer] = []
        for name in configuration.enforcers where name == "hosts" {
            enforcers.append(HostsFileEnforcer(path: paths.hostsFile, logger: logger))
        }
        let events = EventBus()
        let manager = BlockManager(profiles: profiles, configuration: configuration, store: store, enforcers: enforcers,
                                   events: events, logger: logger, clock: { SystemClock.now() })
        let timer = try KernelTimer(name: "session-deadline", clock: .boot) { _ in
            Task { await manager.expireDue() }
        }
        try await manager.restore()
        await manager.setTimer(timer)
        let schedules = try await ScheduleService.start(paths: paths, configuration: configuration, manager: manager,
                                                        state: store, events: events, logger: logger)

        var router = APIRouter(manager: manager, events: events, authorizer: Authorizer(),
                               configurationPath: paths.configFile)
        router.modules.append(schedules.routes)
        router.noticeSources.append(schedules.notices)
        let server = ControlServer(listener: .path(paths.socket), router: router, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [
                .init(service: EnforcerWatchService(enforcers: enforcers)),
                .init(service: CheckpointService(manager: manager, interval: configuration.checkpointInterval)),
                .init(service: ReloadSignalService(manager: manager, configurationPath: paths.configFile, logger: logger)),
                .init(service: schedules),
                .init(service: server),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
        timer.stop()
        await events.finishAll()
        logger.info("stopped")
    }
}
