import ServiceLifecycle

/// Checkpoints the Pomodoro run periodically and once more at shutdown.
struct PomodoroCheckpointService: Service {
    let engine: PomodoroEngine
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await engine.checkpoint()
            }
        }
        await engine.checkpoint()
    }
}
