import CLinux
import Glibc
import LockCore
import Synchronization

/// The stand-in that answers the exec guard's fanotify events when the daemon stops answering
/// (see `clinux_sentinel.h`): a process of its own, so a daemon stopped with SIGSTOP, stuck or
/// starved holds up no exec on the machine longer than `stall` plus a tenth of a second. It
/// refuses blocked files by device and inode, and during a strict block everything the daemon
/// would have to read, and the programs of apps a strict allowance counts (their launches
/// cannot be decided without the daemon); it allows the rest and remembers nothing. Opens of a
/// blocked file are refused only to programs that may run it without exec (`cat` reads it).
final class ExecSentinel: Sendable {
    /// How long the answer thread may be silent before the sentinel answers in its place.
    static let stall = Duration.seconds(2)

    private let state: Mutex<clinux_sentinel?>
    /// Shared with the sentinel; mapped until deinit (the guard's threads, which beat into it,
    /// hold the guard and so end first).
    private nonisolated(unsafe) let table: UnsafeMutablePointer<clinux_sentinel_table>

    /// Forks the sentinel for `group`; nil when it cannot (the guard then works without one).
    init?(group: Int32) {
        var sentinel = clinux_sentinel()
        let nanoseconds = UInt64(Self.stall.components.seconds) * 1_000_000_000
        guard clinux_sentinel_start(group, nanoseconds, &sentinel) == 0, let table = sentinel.table else { return nil }
        self.table = table
        state = Mutex(sentinel)
    }

    /// A sign of life of the answer thread.
    func beat(_ now: UInt64) { clinux_sentinel_beat(table, now) }

    /// What the sentinel decides by from now on; `runners` tells it interpreters by size.
    func update(_ rules: ExecRules, runners: ProgramRunners = .machine) {
        let sizes = rules.digestsBySize.keys.sorted()
        // A strict allowance's launches cannot be decided without the daemon: refused like blocked files.
        let strictCounted = rules.counted.filter { rules.countedApps[$0.value].strict }.keys
        let files = (Array(rules.blocked.keys) + strictCounted).sorted { ($0.device, $0.inode) < ($1.device, $1.inode) }.flatMap {
            [$0.device, $0.inode]
        }
        clinux_sentinel_update(
            table, rules.matchesContent ? 1 : 0, rules.minimumSimilarSize ?? -1, sizes, UInt32(sizes.count), files,
            UInt32(files.count / 2))
        let runnerSizes = runners.sizes.sorted()
        let names = ProgramNames.interpreters.sorted().flatMap { Array($0.utf8CString) } + [0]
        clinux_sentinel_set_runners(table, runnerSizes, UInt32(runnerSizes.count), names, UInt32(names.count))
    }

    /// Blocked files held in the filter rather than exactly.
    var filtered: Int { Int(table.pointee.filtered) }

    /// Events it answered in the daemon's place.
    var answered: (allowed: Int, refused: Int) {
        (Int(table.pointee.allowed), Int(table.pointee.refused))
    }

    /// Ends the sentinel (it no longer holds the group); idempotent.
    func stop() {
        state.withLock { sentinel in
            guard var running = sentinel else { return }
            clinux_sentinel_stop(&running)
            sentinel = nil
        }
    }

    deinit {
        stop()
        clinux_sentinel_release(table)
    }
}
