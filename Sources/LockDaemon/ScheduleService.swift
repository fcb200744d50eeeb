import Foundation
import LockCore
import LockPlatform
import LockStore
import Logging
import ServiceLifecycle

/// The schedule subsystem as the daemon runs it: the scheduler, the wall-clock timer that
/// wakes it at each edge and whenever the clock is set or the machine resumes, a watch on
/// `/etc/localtime` for time-zone changes, and its share of reloads, routes and notices.
final class ScheduleService: ServiceLifecycle.Service {
    let scheduler: Scheduler
    private let timer: KernelTimer
    private let zoneWatcher: FileWatcher?
    private let events: EventBus

    private init(scheduler: Scheduler, timer: KernelTimer, zoneWatcher: FileWatcher?, events: EventBus) {
        self.scheduler = scheduler
        self.timer = timer
        self.zoneWatcher = zoneWatcher
        self.events = events
    }

    /// Loads the schedules and puts in force what is due now, before the daemon answers its
    /// first request.
    static func start(paths: Paths, configuration: DaemonConfiguration, manager: BlockManager, state: StateStore,
                      events: EventBus, logger: Logger) async throws -> ScheduleService {
        var store = ScheduleStore(directory: paths.schedulesDirectory)
        let profiles = Set(await manager.listProfiles().profiles.map(\.name))
        for problem in store.reload(profiles: profiles) {
            logger.warning("schedule problem; the file is ignored", metadata: ["problem": "\(problem)"])
        }
        let root = paths.root
        let scheduler = Scheduler(store: store, manager: manager, state: state, events: events, logger: logger,
                                  clock: { SystemClock.now() }, systemZone: { SystemTimeZone.current(root: root) },
                                  defaultWarning: configuration.scheduleWarning)
        let timer = try KernelTimer(name: "schedule-edges", clock: .wall, cancelOnClockChange: true) { firing in
            Task { await scheduler.evaluate(firing == .deadline ? "edge" : "wall clock set or resumed") }
        }
        var zoneWatcher: FileWatcher?
        do {
            zoneWatcher = try FileWatcher(path: SystemTimeZone.localtimePath(root: root)) {
                Task { await scheduler.evaluate("time zone file changed") }
            }
        } catch {
            logger.warning("cannot watch for time-zone changes; they are noticed at the next edge", metadata: ["error": "\(error)"])
        }
        await scheduler.setTimer(timer)
        let configurationPath = paths.configFile
        await manager.addReloadHook { await scheduler.reloadFiles(configurationPath: configurationPath) }
        await manager.addProfileUser { await scheduler.users(of: $0) }
        await scheduler.start()
        logger.info("schedules loaded", metadata: ["schedules": "\(store.schedules.count)"])
        return ScheduleService(scheduler: scheduler, timer: timer, zoneWatcher: zoneWatcher, events: events)
    }

    /// The `/v1/schedules…` endpoints.
    var routes: any RouteModule { ScheduleRoutes(scheduler: scheduler) }

    /// Status notices (`mornings starts in 4 min`).
    var notices: @Sendable () async -> [String] { { [scheduler] in await scheduler.notices() } }

    /// Re-evaluates when profiles change (created, edited, deleted, reloaded: a schedule may
    /// refer to one), until shutdown.
    func run() async throws {
        let scheduler = self.scheduler
        let events = self.events
        await cancelWhenGracefulShutdown {
            for await event in await events.subscribe() where event.type == .profilesChanged {
                await scheduler.profilesChanged()
            }
        }
        timer.stop()
        zoneWatcher?.stop()
    }
}
