import ServiceLifecycle

/// Deletes what is kept only for a while (blocked attempts, usage minutes and sums) at start-up
/// and every `interval`: one loop, so the daemon wakes once an hour for all of them.
struct RetentionService: ServiceLifecycle.Service {
    let interval: Duration
    let prunes: [@Sendable () async -> Void]

    func run() async throws {
        for prune in prunes { await prune() }
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                for prune in prunes { await prune() }
            }
        }
    }
}
