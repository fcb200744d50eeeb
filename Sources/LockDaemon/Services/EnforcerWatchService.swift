import LockEnforcement
import ServiceLifecycle

/// Runs every enforcer's watch (restoring what someone undoes from outside) until shutdown.
struct EnforcerWatchService: Service {
    let enforcers: [any Enforcer]

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for enforcer in enforcers { group.addTask { await enforcer.watch() } }
            }
        }
    }
}
