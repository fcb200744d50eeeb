import CLinux
import Foundation
import Glibc
import LockPlatform
import Logging
import Synchronization

/// Carries denials and notes from the exec guard's answer thread to the rest of the daemon on
/// a thread of its own: the answer thread only appends to a bounded queue and pokes an
/// eventfd, so a slow callback or a blocked log destination can never delay an answer (and
/// with it every exec on the machine).
final class DenialReporter: Sendable {
    private enum Item: Sendable {
        case denial(ExecDenial)
        case note(Logger.Level, String)
    }

    /// The queue, shared with the reporting thread.
    private final class Inbox: Sendable {
        let items = Mutex<[Item]>([])
        let recent = Mutex<[String: Date]>([:])
    }

    /// Items waiting beyond this are dropped (and counted): a flood of denials must not grow memory.
    static let capacity = 1024
    /// A denial of the same file to the same process within this many seconds is the same
    /// attempt seen twice (an exec refused both as exec and as an interpreter open).
    static let duplicateWindow = 1.0

    private let inbox = Inbox()
    private let dropped = Atomic<Int>(0)
    private let wakeFD: Int32
    private let thread: Mutex<WakeupThread?> = Mutex(nil)

    init(logger: Logger, onDenial: @escaping @Sendable (ExecDenial) -> Void) {
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let inbox = self.inbox
        let wakeFD = self.wakeFD
        let thread = WakeupThread(name: "exec-guard-report", fd: wakeFD) {
            var counter: UInt64 = 0
            _ = read(wakeFD, &counter, 8)
            let items = inbox.items.withLock { items -> [Item] in
                defer { items.removeAll(keepingCapacity: true) }
                return items
            }
            for item in items {
                switch item {
                case .note(let level, let message):
                    logger.log(level: level, "\(message)")
                case .denial(let denial):
                    let key = "\(denial.pid) \(denial.path)"
                    let fresh = inbox.recent.withLock { seen -> Bool in
                        if seen.count > 4096 { seen.removeAll() }
                        if let last = seen[key], denial.date.timeIntervalSince(last) < Self.duplicateWindow { return false }
                        seen[key] = denial.date
                        return true
                    }
                    guard fresh else { continue }
                    logger.notice(
                        "blocked \(denial.appName)",
                        metadata: [
                            "app": "\(denial.appID)", "pid": "\(denial.pid)", "path": "\(denial.path)",
                            "reason": "\(denial.reason.rawValue)", "opener": "\(denial.opener ?? "")",
                        ])
                    onDenial(denial)
                }
            }
        }
        self.thread.withLock { $0 = thread }
    }

    /// How many items were dropped because the queue was full.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    func report(_ denial: ExecDenial) { enqueue(.denial(denial)) }

    func note(_ level: Logger.Level, _ message: String) { enqueue(.note(level, message)) }

    private func enqueue(_ item: Item) {
        let accepted = inbox.items.withLock { items -> Bool in
            guard items.count < Self.capacity else { return false }
            items.append(item)
            return true
        }
        guard accepted else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    func stop() {
        thread.withLock {
            $0?.stop()
            $0 = nil
        }
    }

    deinit {
        stop()
        close(wakeFD)
    }
}
