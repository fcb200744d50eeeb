import LockPlatform

// What fanotify cannot see: filesystems mounted in other mount namespaces.
extension AppEnforcer {
    /// How often a strict block sweeps; a copy started from a filesystem of a new mount
    /// namespace runs for about this long (plus the time to read it) before it is stopped.
    static let sweepInterval = Duration.seconds(1)

    func sweepUntilCancelled() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.sweepInterval)
            sweep()
        }
    }

    /// During a strict block: marks the user-writable filesystems of mount namespaces that
    /// appeared since the last apply (`ForeignMounts`; a tmpfs mounted after `unshare -Urm` is
    /// in no mount table the daemon reads), and stops what runs a blocked program anywhere
    /// (`RunningProcesses` compares `/proc/PID/exe` by content, in whichever namespace it
    /// lives): a copy exec'd from such a filesystem before its mark is stopped here.
    func sweep() {
        guard apps.contains(where: \.strict), let execGuard = guardian.withLock({ $0 }) else { return }
        let foreign = ForeignMounts.find(extra: settings.userWritable, scope: settings.mountScope)
        // Marked again at every sweep (adding a mark is idempotent and keeps the allow cache): a
        // new tmpfs can have the device number and mount id of one that went away.
        execGuard.markFilesystems(Dictionary(foreign.map { ($0.device, $0.path) }, uniquingKeysWith: { first, _ in first }))
        if !Set(foreign.map(\.identity)).isSubset(of: foreignMounts) {
            do {
                try enforce(remount: true)
            } catch {
                logger.error("re-applying app blocks for a new mount namespace failed", metadata: ["error": "\(error)"])
            }
            return
        }
        stopRunning(rules, hasher: execGuard.hasher)
    }
}
