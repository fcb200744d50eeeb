import LockPlatform
import ServiceLifecycle

/// Hands the memory malloc keeps after a burst of work back to the kernel, a moment after a
/// block starts or ends or the profiles change. Starting a 100 000-name block frees tens of
/// megabytes in small pieces (the names worked out, the hosts file rendered and read back,
/// status built for systemd), which glibc would otherwise keep for as long as the daemon runs.
struct MemoryTrimService: Service {
    let events: EventBus
    /// How long after such an event: the work that follows it (the hosts file's change event
    /// after its settle time, the status for systemd) is done by then.
    var delay: Duration = .milliseconds(500)

    func run() async throws {
        let (requests, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events.subscribe() where Self.leavesFreedMemory(event) {
                    // At once too: the event comes after the change is enforced, and blocks started
                    // and stopped back to back (a script, a test) would otherwise pile up what
                    // each left until the delayed trim, which raised the daemon's peak by 5 MiB.
                    MallocPolicy.returnFreedMemory()
                    continuation.yield()
                }
                continuation.finish()
            }
            group.addTask {
                // At most one delayed trim per `delay`; a request during the wait is served by the next.
                for await _ in requests {
                    try? await Task.sleep(for: delay)
                    MallocPolicy.returnFreedMemory()
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    static func leavesFreedMemory(_ event: DaemonEvent) -> Bool {
        switch event {
        case .sessionStarted, .sessionEnded, .profilesChanged: true
        default: false
        }
    }
}
