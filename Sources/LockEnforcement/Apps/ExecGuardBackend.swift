import Glibc

/// One way of keeping blocked programs from running; `ExecGuard` picks one.
protocol ExecGuardBackend: AnyObject, Sendable {
    /// Puts `rules` in force; returns what could not be done (a filesystem that refused a mark).
    func update(_ rules: ExecRules) -> [String]
    /// Marks these filesystems (device → a path to it) as well, between updates; idempotent.
    func markFilesystems(_ filesystems: [UInt64: String])
    /// Counters and marks.
    func statistics() -> ExecGuardStatistics
    /// `CLOCK_MONOTONIC` nanoseconds of the decision thread's last sign of life.
    var lastBeat: UInt64 { get }
    /// Stops; afterwards nothing is denied any more.
    func stop()
}

extension ExecGuardBackend {
    /// Nothing to mark: the proc connector sees every exec.
    func markFilesystems(_ filesystems: [UInt64: String]) {}
}

/// `CLOCK_MONOTONIC` now, in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}
