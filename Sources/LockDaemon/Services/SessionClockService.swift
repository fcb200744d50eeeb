import ServiceLifecycle

/// Ends sessions when the deadline timer fires, and checkpoints them every `interval` and once
/// more at shutdown. After each, `afterward` runs (the coordinator drops list versions that
/// only ended blocks held).
struct SessionClockService: Service {
    let sessions: SessionService
    let deadlines: TimerFeed
    let interval: Duration
    var afterward: @Sendable () async -> Void = {}

    func run() async throws {
        let sessions = self.sessions
        let deadlines = self.deadlines
        let interval = self.interval
        let afterward = self.afterward
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in deadlines.firings {
                        await sessions.expireDue()
                        await afterward()
                    }
                }
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil {
                        await sessions.checkpoint()
                        await afterward()
                    }
                }
            }
        }
        deadlines.timer.stop()
        await sessions.checkpoint()
    }
}
