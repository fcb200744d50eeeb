import LockCore
import Logging

// Sessions over time: restored at start-up, ended when their deadline passes, checkpointed so
// that a reboot loses at most one interval.
extension SessionService {
    /// Loads the saved sessions, ends those whose time ran out while the daemon was not
    /// running, and enforces the rest. An enforcement failure does not keep the daemon from
    /// starting (a running daemon can report it); it is retried at every checkpoint.
    public func restore() async throws {
        try await gate.run { () async throws in
            let now = clock()
            let saved = try store.activeSessions()
            var change = SessionChange()
            for saved in saved {
                if saved.hasImplausibleBootReading(at: now) {
                    logger.warning(
                        "the boot clock reads earlier than the session's last checkpoint; its time is clamped to what it had",
                        metadata: metadata(saved))
                }
                var resumed = saved.resumed(at: now)
                // Time off that could not be counted before counts once the clock is trusted.
                if let corrected = resumed.corrected(at: now) { resumed = corrected }
                if resumed.hasEnded(at: now) {
                    change.ended.append(.init(session: saved, reason: .daemonRestart, at: endDate(of: saved, now: now)))
                } else if resumed != saved {
                    change.updated.append(.init(old: saved, new: resumed))
                }
                if resumed.pendingOffTime != nil, saved.pendingOffTime == nil {
                    logger.warning(
                        "the wall clock is not synchronised: the time the machine was off is not counted until it is",
                        metadata: metadata(resumed))
                }
            }
            do { try store.commit(change, at: now) } catch {
                // A full or read-only state directory: what was saved is still enforced.
                logger.error("cannot save the restored sessions; enforcing them as read", metadata: ["error": "\(error)"])
            }
            sessions = change.applied(to: SessionSet(saved))
            await enforceAll(now: now)
            timer.arm(at: sessions.nextDeadline)
            for ending in change.ended {
                logger.info(
                    "session ended while the daemon was not running", metadata: metadata(ending.session, ["reason": "daemon-restart"]))
            }
            for session in sessions.sessions {
                logger.info(
                    "session resumed", metadata: metadata(session, ["remaining": "\(DurationParser.format(session.remaining(at: now)))"]))
            }
        }
    }

    /// Ends every session whose time is up; called when the deadline timer fires. If the end
    /// cannot be enforced, the sessions stay and it is tried again shortly.
    public func expireDue() async {
        await gate.run {
            let now = clock()
            let due = sessions.ended(at: now)
            guard !due.isEmpty else {
                timer.arm(at: sessions.nextDeadline)
                return
            }
            let change = SessionChange(ended: due.map { .init(session: $0, reason: .expired, at: now.wall) })
            // With the owners' claims of the same instant (a Pomodoro focus phase ending with
            // its session): one pass over the enforcers.
            if let error = await reconcileNow(change, at: now, requestIsOptional: true).failure {
                logger.error("cannot end expired sessions; trying again", metadata: ["error": "\(error)"])
                timer.arm(at: now.boot + Self.retryDelay)
            }
        }
    }

    /// Saves every session's remaining time, so a reboot loses at most one interval; takes off
    /// the time a machine was off once the clock is synchronised; retries what failed before.
    public func checkpoint() async {
        await gate.run {
            let now = clock()
            var corrections = SessionChange()
            for session in sessions.sessions {
                guard let corrected = session.corrected(at: now) else { continue }
                logger.notice(
                    "the wall clock is synchronised: the time the machine was off is counted now",
                    metadata: metadata(session, ["remaining": "\(DurationParser.format(corrected.remaining(at: now)))"]))
                if corrected.hasEnded(at: now) {
                    corrections.ended.append(.init(session: session, reason: .daemonRestart, at: now.wall))
                } else {
                    corrections.updated.append(.init(old: session, new: corrected))
                }
            }
            if !corrections.isEmpty {
                do { try await commit(corrections, at: now) } catch {
                    logger.error("cannot correct sessions for the time off; trying again", metadata: ["error": "\(error)"])
                }
            }
            let updated = sessions.sessions.map { $0.checkpointed(at: now) }
            do {
                try store.checkpoint(updated, at: now)
                sessions = SessionSet(updated)
            } catch {
                logger.error("cannot save checkpoint", metadata: ["error": "\(error)"])
            }
            for name in staleProfiles.sorted() {
                do throws(SessionError) { try await refreshRulesNow(for: name) } catch {
                    logger.error(
                        "cannot give running sessions their profile's new rules; trying again",
                        metadata: ["profile": "\(name)", "error": "\(error)"])
                }
            }
            if needsEnforcement { await enforceAll(now: now) }
            if !sessions.ended(at: now).isEmpty { timer.arm(at: now.boot) }
        }
    }
}
