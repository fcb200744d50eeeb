import ServiceLifecycle

/// Moves the Pomodoro run on when its phase timer fires, and checkpoints it every `interval`
/// and once more at shutdown.
struct PomodoroClockService: Service {
    let engine: PomodoroEngine
    let deadlines: TimerFeed
    let interval: Duration

    func run() async throws {
        let engine = self.engine
        let deadlines = self.deadlines
        let interval = self.interval
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { for await _ in deadlines.firings { await engine.deadlineReached() } }
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { await engine.checkpoint() }
                }
            }
        }
        deadlines.timer.stop()
        await engine.checkpoint()
    }
}
