import ServiceLifecycle

/// Deletes what is kept only for a while (blocked attempts, usage minutes and sums) at start-up
/// and every `interval`: one loop, so the daemon wakes once an hour for all of them.
struct RetentionService: ServiceLifecycle.Service {
    let interval: Duration
    /// `[insights] retention`, handed over by the Coordinator at each reload.
    let setting: RetentionSetting
    let prunes: [@Sendable (Duration) async -> Void]

    func run() async throws {
        await pruneAll()
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await pruneAll()
            }
        }
    }

    private func pruneAll() async {
        let keep = await setting.keep
        for prune in prunes { await prune(keep) }
    }
}

/// How long blocked attempts and usage sums are kept. The Coordinator sets it from the
/// configuration it reads (start-up, reload); the retention loop only reads it.
actor RetentionSetting {
    private(set) var keep: Duration

    init(_ keep: Duration) { self.keep = keep }

    func set(_ keep: Duration) { self.keep = keep }
}
