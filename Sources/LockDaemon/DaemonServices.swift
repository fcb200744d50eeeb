import LockEnforcement
import LockStore
import Logging
import ServiceLifecycle
import UnixSignals

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

/// Saves session checkpoints periodically and once more at shutdown.
struct CheckpointService: Service {
    let manager: BlockManager
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await manager.checkpoint()
            }
        }
        await manager.checkpoint()
    }
}

/// Saves the addresses the firewall enforcer has resolved, periodically and at shutdown, so a
/// restart (at boot, before the network and DNS are up) can block them at once.
struct AddressBookService: Service {
    static let stateKey = "nftables.addresses"
    let firewall: NFTablesEnforcer
    let store: StateStore
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                try? store.setValue(await firewall.knownAddresses(), forKey: Self.stateKey)
            }
        }
        try? store.setValue(await firewall.knownAddresses(), forKey: Self.stateKey)
    }
}

/// Re-reads configuration and profiles on SIGHUP (`systemctl reload`).
struct ReloadSignalService: Service {
    let manager: BlockManager
    let configurationPath: String
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                notifier.reloading(status: "reloading configuration")
                let result = await manager.reload(configurationPath: configurationPath)
                notifier.ready(status: await manager.serviceStatusText())
                logger.notice("reloaded on SIGHUP", metadata: ["profiles": "\(result.profiles)", "problems": "\(result.problems.count)"])
            }
        }
    }
}
