import LockPlatform
import ServiceLifecycle

/// Wakes the scheduler: at each edge and whenever the wall clock is set or the machine resumes
/// (a wall-clock timer), and when `/etc/localtime` changes (a file watch). Runs until shutdown.
struct ScheduleService: Service {
    let scheduler: Scheduler
    let edges: TimerFeed
    let zone: FileChangeFeed

    func run() async throws {
        let scheduler = self.scheduler
        let edges = self.edges
        let zone = self.zone
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await firing in edges.firings {
                        await scheduler.evaluate(firing == .deadline ? "edge" : "wall clock set or resumed")
                    }
                }
                group.addTask {
                    for await _ in zone.changes { await scheduler.evaluate("time zone file changed") }
                }
            }
        }
        edges.timer.stop()
        zone.watcher?.stop()
    }
}
