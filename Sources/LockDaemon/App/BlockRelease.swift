import Foundation
import LockCore
import LockEnforcement
import LockPlatform
import LockStore
import Logging

/// `simplylockd --release`: for uninstalling. Ends every saved block (strict ones too: whoever
/// may remove the program may remove its blocks) and removes what enforces them — the hosts
/// section, the nftables table, the DNS redirect — so nothing is left behind. Refused while a
/// daemon runs on the same state directory.
enum BlockRelease {
    static func run(paths: Paths, enforcersOverride: [String]?) async throws -> Int32 {
        let lock: InstanceLock
        do { lock = try InstanceLock(path: paths.stateDirectory + "/simplylockd.lock") } catch {
            throw DaemonFailure(message: "\(error); stop it first (systemctl stop simplylockd.socket simplylockd.service)")
        }
        defer { withExtendedLifetime(lock) {} }
        var logger = Logger(label: "simplylockd")
        logger.logLevel = .error
        var ended = 0
        if FileManager.default.fileExists(atPath: paths.stateDatabase) {
            let store = try StateStore(path: paths.stateDatabase)
            let now = SystemClock.now()
            let sessions = try store.activeSessions()
            if !sessions.isEmpty {
                try store.commit(SessionChange(ended: sessions.map { .init(session: $0, reason: .stopped, at: now.wall) }), at: now)
            }
            ended = sessions.count
        }
        let settings = DaemonConfiguration.load(paths.configFile).configuration
        // Lifting blocks records no attempts: nothing reads this inbox.
        let built = EnforcerFactory(
            paths: paths, configuration: settings, logger: logger, attempts: AttemptInbox(clock: { SystemClock.now() })
        )
        .build(override: enforcersOverride)
        var status: Int32 = 0
        for enforcer in built.enforcers.reversed() {
            do { try await enforcer.apply(.empty) } catch {
                FileHandle.standardError.write(Data("simplylockd: \(enforcer.name): \(error)\n".utf8))
                status = 1
            }
        }
        // So do the connection check's queue tables of a killed daemon (they queue to nobody,
        // and `bypass` lets everything through, but they are ours to remove).
        try? ConnectionNameEnforcer.removeTables()
        // The exec guard's pins outlast every daemon, also one configured without the bpf enforcer.
        BPFExecGuard.detach(pinDirectory: BPFObject.pins(paths))
        print("ended \(CountText.of(ended, "saved block")); lifted \(built.enforcers.map(\.name).joined(separator: ", "))")
        return status
    }
}
