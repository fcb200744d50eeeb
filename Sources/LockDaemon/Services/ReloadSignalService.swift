import Logging
import ServiceLifecycle
import UnixSignals

/// Reads configuration, profiles and schedules again on SIGHUP (`systemctl reload`).
struct ReloadSignalService: Service {
    let coordinator: Coordinator
    let reporter: Reporter
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                notifier.reloading(status: "reloading configuration")
                let result = await coordinator.reload()
                notifier.ready(status: await reporter.serviceStatusText())
                logger.notice("reloaded on SIGHUP", metadata: ["profiles": "\(result.profiles)", "problems": "\(result.problems.count)"])
            }
        }
    }
}
