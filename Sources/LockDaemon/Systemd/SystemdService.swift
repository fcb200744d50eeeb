import NIOCore
import NIOPosix
import ServiceLifecycle

/// Keeps systemd informed while the daemon runs: `STATUS=` follows the active blocks (on
/// every event, and each minute so that remaining times stay current), `WATCHDOG=1` is sent
/// only while the session service and the network event loop both answer, and `STOPPING=1`
/// goes out as soon as shutdown begins. Does nothing visible without `NOTIFY_SOCKET`.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let sessions: SessionService
    let reporter: Reporter
    let events: EventBus

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await notifier.runWatchdog { await isHealthy() }
            }
            group.addTask {
                await refreshStatus()
                for await _ in events.subscribe() { await refreshStatus() }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(60))
                    await refreshStatus()
                }
            }
            try? await gracefulShutdown()
            notifier.stopping(status: "shutting down")
            group.cancelAll()
        }
    }

    /// A round trip through the actor that owns the blocks and through an event loop of the
    /// control server: if either hangs, the pings stop and systemd restarts the daemon.
    private func isHealthy() async -> Bool {
        _ = await sessions.active.count
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        return (try? await loop.submit { true }.get()) ?? false
    }

    private func refreshStatus() async {
        notifier.status(await reporter.serviceStatusText())
    }
}
