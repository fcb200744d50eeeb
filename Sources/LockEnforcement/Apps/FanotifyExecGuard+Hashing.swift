import Glibc
import LockPlatform

// The hash worker: reads files a strict block must compare, and answers their execs itself,
// so that one large file never holds up the answer thread.
extension FanotifyExecGuard {
    func hashLoop() {
        var fds = [
            pollfd(fd: hashWakeFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 { continue }
            if fds[1].revents != 0 {
                // Whatever is still waiting is allowed; closing the group would do it too.
                for item in pending.withLock({ items in
                    defer { items = [] }
                    return items
                }) {
                    answer(groupFD, item.fd, allow: true)
                    close(item.fd)
                }
                return
            }
            var counter: UInt64 = 0
            _ = read(hashWakeFD, &counter, 8)
            while let item = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                decideByContent(item)
            }
        }
    }

    func decideByContent(_ item: PendingHash) {
        defer { close(item.fd) }
        let key = ContentHasher.Key(item.status)
        let rules = decision.withLock { $0.rules }
        let deadline = item.queued + Self.hashDeadline
        guard ContinuousClock.now < deadline, let signature = hasher.signature(fd: item.fd, key: key, deadline: deadline) else {
            answerUnchecked(item.fd, strict: rules.matchesContent)
            return
        }
        if let rule = rules.rule(matching: signature) {
            answer(groupFD, item.fd, allow: false)
            deny(pid: item.pid, fd: item.fd, rule: rules.rules[rule], reason: .copy)
        } else {
            cacheAllowed(item.fd, generation: item.generation, surviveModify: false)
            answer(groupFD, item.fd, allow: true)
        }
    }
}
