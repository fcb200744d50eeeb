import NIOCore
import NIOPosix
import ServiceLifecycle

/// Keeps systemd informed while the daemon runs: `STATUS=` follows the active blocks (on
/// every event, and each minute so that remaining times stay current), `WATCHDOG=1` is sent
/// only while the session service, the network event loop and the exec guard all answer, and
/// `STOPPING=1` goes out as soon as shutdown begins. Does nothing visible without `NOTIFY_SOCKET`.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let sessions: SessionService
    let reporter: Reporter
    let events: EventBus
    /// True while the app enforcer's exec guard answers (or none runs). A guard that stops
    /// answering holds every exec on the filesystems it watches, so the daemon must be
    /// restarted: the kernel lets everything through once the process is gone.
    var execGuardAnswers: @Sendable () -> Bool = { true }

    /// How long the exec guard's decision thread may stay silent before the daemon counts as
    /// hung (it shows a sign of life at least four times a second).
    static let execGuardSilence = 5.0

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
    /// control server, and the exec guard's heartbeat: if any hangs, the pings stop and
    /// systemd restarts the daemon.
    private func isHealthy() async -> Bool {
        guard execGuardAnswers() else { return false }
        _ = await sessions.active.count
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        return (try? await loop.submit { true }.get()) ?? false
    }

    private func refreshStatus() async {
        notifier.status(await reporter.serviceStatusText())
    }
}
