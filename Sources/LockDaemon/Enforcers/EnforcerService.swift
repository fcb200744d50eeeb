import LockEnforcement
import ServiceLifecycle

/// One enforcer's long-running work as a Service: its watch (restoring what someone undoes from
/// outside) runs until shutdown, then everything it started (threads, sockets, monitors) is
/// stopped. One service per enforcer, in the order they apply, so that shutdown stops them in
/// reverse order (nftables before the DNS filter its redirect points at).
struct EnforcerService: Service, CustomStringConvertible {
    let enforcer: any Enforcer

    var description: String { "enforcer \(enforcer.name)" }

    func run() async throws {
        await cancelWhenGracefulShutdown { await enforcer.watch() }
        await enforcer.shutdown()
    }
}
