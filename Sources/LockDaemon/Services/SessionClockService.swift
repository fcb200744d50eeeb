import ServiceLifecycle

/// Ends sessions when the deadline timer fires, and checkpoints them every `interval` and once
/// more at shutdown.
struct SessionClockService: Service {
    let sessions: SessionService
    let deadlines: TimerFeed
    let interval: Duration

    func run() async throws {
        let sessions = self.sessions
        let deadlines = self.deadlines
        let interval = self.interval
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { for await _ in deadlines.firings { await sessions.expireDue() } }
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { await sessions.checkpoint() }
                }
            }
        }
        deadlines.timer.stop()
        await sessions.checkpoint()
    }
}
