import CLinux
import Glibc
import LockCore
import LockPlatform

// Reporting denials and remembering allowed files.
extension FanotifyExecGuard {
    func deny(pid: Int32, fd: Int32, rule: ExecRules.Rule, reason: ExecDenial.Reason, opener: String? = nil) {
        denials.add(1, ordering: .relaxed)
        reporter.report(Self.denial(pid: pid, fd: fd, appID: rule.appID, appName: rule.appName, reason: reason, opener: opener))
    }

    /// A denial of the file open on `fd` to `pid`.
    static func denial(
        pid: Int32, fd: Int32, appID: String, appName: String, reason: ExecDenial.Reason, opener: String? = nil,
        refusal: OpenRefusal? = nil
    ) -> ExecDenial {
        ExecDenial(
            pid: pid, path: readLink("/proc/self/fd/\(fd)") ?? "?", opener: opener, appID: appID, appName: appName, reason: reason,
            refusal: refusal)
    }

    /// Remembers an allowed file in the kernel (an ignore mark), unless the rules changed
    /// since the decision: the mark and the rules' generation are checked under one lock, and
    /// `update` flushes under the same lock.
    func cacheAllowed(_ fd: Int32, generation: UInt64, surviveModify: Bool) {
        decision.withLock { decision in
            guard decision.generation == generation, !decision.stopped else { return }
            // Without SURV_MODIFY a write to the file clears the mark: needed when content
            // decides (a file rewritten into a copy of a blocked program).
            var flags = FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | (surviveModify ? FAN_MARK_IGNORED_SURV_MODIFY : 0)
            if decision.evictable { flags |= FAN_MARK_EVICTABLE }
            if clinux_fanotify_mark(groupFD, UInt32(flags), UInt64(FAN_OPEN_EXEC_PERM), fd, nil) == 0 {
                cached.add(1, ordering: .relaxed)
            } else if decision.evictable, errno == EINVAL {
                // Kernels before 5.19 have no evictable marks; pinned inodes are the price.
                decision.evictable = false
                flags &= ~FAN_MARK_EVICTABLE
                if clinux_fanotify_mark(groupFD, UInt32(flags), UInt64(FAN_OPEN_EXEC_PERM), fd, nil) == 0 {
                    cached.add(1, ordering: .relaxed)
                }
            }
        }
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
