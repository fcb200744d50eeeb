import Foundation

/// One active block: a snapshot of a profile's rules, what started it, and when it ends.
///
/// The end is a deadline on the boot clock, valid only within the boot it was set in. A
/// checkpoint (the time that was left, and the wall time it was taken at) carries a session
/// across a reboot: it then resumes with what was left minus the wall time that passed while
/// the machine was off, never negative and never more than it had. That wall time counts only
/// when the wall clock is synchronised; otherwise the session resumes with what it had at the
/// checkpoint and is corrected once the clock is synchronised (`corrected(at:)`).
///
/// A session never has more time left than at its last checkpoint: a boot clock that jumps
/// back (libfaketime fakes `CLOCK_BOOTTIME` too) cannot lengthen a block.
public struct Session: Sendable, Equatable, Codable, Identifiable {
    /// Short unique identifier (`3f9a1c2b7d4e`).
    public var id: String
    /// Name of the profile it blocks.
    public var profile: String
    /// What started it.
    public var origin: SessionOrigin
    /// A strict session cannot be stopped before its end, only extended.
    public var strict: Bool
    /// Where it blocks: this machine (the default), the LAN, device groups.
    public var target: BlockTarget
    /// The profile's rules as they were when it started (updated when the profile gains rules).
    public var rules: BlockRules
    /// Wall-clock start, for display and history.
    public var startedAt: Date
    /// The end, on the boot clock of boot `bootID`.
    public var endBoot: BootTime
    /// The boot in which `endBoot` is meaningful.
    public var bootID: String
    /// Time that was left at the last checkpoint.
    public var checkpointRemaining: Duration
    /// Wall-clock time of the last checkpoint.
    public var checkpointWall: Date
    /// Set when the session resumed after a reboot while the wall clock was not synchronised:
    /// the time off is not known yet, and is taken off once the clock can be trusted.
    public var pendingOffTime: PendingOffTime?
    /// How this session may be ended early (emergency access), fixed when it started: adding
    /// `[friction]` later does not make a "strict means strict" block unlockable, nor does
    /// removing it lock in one that could be ended. Nil for sessions saved before it was kept,
    /// which take the policy in force when asked.
    public var friction: FrictionPolicy?

    /// What is needed to count the time a machine was off, once the wall clock can be trusted.
    public struct PendingOffTime: Sendable, Equatable, Codable {
        /// Wall-clock time of the checkpoint before the machine went off.
        public var since: Date
        /// The boot-clock instant (in the new boot) at which the session resumed.
        public var resumedAt: BootTime

        /// Creates a pending correction.
        public init(since: Date, resumedAt: BootTime) {
            self.since = since
            self.resumedAt = resumedAt
        }
    }

    /// Starts a session of `duration` at `now`.
    public init(
        id: String, profile: String, origin: SessionOrigin, strict: Bool, rules: BlockRules,
        duration: Duration, now: ClockReading, target: BlockTarget = .thisMachine
    ) {
        self.id = id
        self.profile = profile
        self.origin = origin
        self.strict = strict
        self.target = target
        self.rules = rules
        self.startedAt = now.wall
        self.endBoot = now.boot + duration
        self.bootID = now.bootID
        self.checkpointRemaining = duration
        self.checkpointWall = now.wall
    }

    private enum CodingKeys: String, CodingKey {
        case id, profile, origin, strict, target, rules, startedAt, endBoot, bootID, checkpointRemaining, checkpointWall, pendingOffTime
        case friction
    }

    // Sessions written before targets existed block this machine.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        profile = try container.decode(String.self, forKey: .profile)
        origin = try container.decode(SessionOrigin.self, forKey: .origin)
        strict = try container.decode(Bool.self, forKey: .strict)
        target = try container.decodeIfPresent(BlockTarget.self, forKey: .target) ?? .thisMachine
        rules = try container.decode(BlockRules.self, forKey: .rules)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        endBoot = try container.decode(BootTime.self, forKey: .endBoot)
        bootID = try container.decode(String.self, forKey: .bootID)
        checkpointRemaining = try container.decode(Duration.self, forKey: .checkpointRemaining)
        checkpointWall = try container.decode(Date.self, forKey: .checkpointWall)
        pendingOffTime = try container.decodeIfPresent(PendingOffTime.self, forKey: .pendingOffTime)
        friction = try container.decodeIfPresent(FrictionPolicy.self, forKey: .friction)
    }

    /// Time left at `now` (zero once it has ended). Across a reboot this is the checkpoint
    /// rule; call `resumed(at:)` first to re-anchor the session in the new boot.
    public func remaining(at now: ClockReading) -> Duration {
        if now.bootID == bootID { return min(checkpointRemaining, max(.zero, endBoot - now.boot)) }
        guard now.wallIsSynchronised else { return max(.zero, checkpointRemaining) }
        let off = max(.zero, Duration.checkedSeconds(now.wall.timeIntervalSince(checkpointWall)) ?? .zero)
        return min(checkpointRemaining, max(.zero, checkpointRemaining - off))
    }

    /// True when the boot clock reads earlier than the last checkpoint (or the end lies further
    /// away than the time that was left): a reading that cannot be trusted, to be logged.
    public func hasImplausibleBootReading(at now: ClockReading) -> Bool {
        now.bootID == bootID && endBoot - now.boot > checkpointRemaining + .seconds(1)
    }

    /// The wall-clock end as it looks from `now`: now plus what is left. It moves if the wall
    /// clock is changed, which is the point: the block itself does not.
    public func endsAt(at now: ClockReading) -> Date {
        now.wall.addingTimeInterval(remaining(at: now).seconds)
    }

    /// True when its time is up at `now`.
    public func hasEnded(at now: ClockReading) -> Bool { remaining(at: now) <= .zero }

    /// The session re-anchored to the boot of `now` (a no-op within the same boot), with a
    /// fresh checkpoint.
    public func resumed(at now: ClockReading) -> Session {
        var copy = self
        let left = remaining(at: now)
        if now.bootID != bootID, !now.wallIsSynchronised {
            copy.pendingOffTime = PendingOffTime(since: pendingOffTime?.since ?? checkpointWall, resumedAt: now.boot)
        }
        copy.endBoot = now.boot + left
        copy.bootID = now.bootID
        copy.checkpointRemaining = left
        copy.checkpointWall = now.wall
        return copy
    }

    /// The session with the time the machine was off taken off, once the wall clock is
    /// synchronised (nil while it is not, or when there is nothing to correct). The wall time
    /// at which the session resumed is worked out backwards from now on the boot clock, which
    /// nobody can set; time off is never negative and never more than what was left.
    public func corrected(at now: ClockReading) -> Session? {
        guard let pending = pendingOffTime, now.wallIsSynchronised, now.bootID == bootID else { return nil }
        var copy = self
        copy.pendingOffTime = nil
        let sinceResume = max(.zero, now.boot - pending.resumedAt)
        let resumedWall = now.wall.addingTimeInterval(-sinceResume.seconds)
        let off = max(.zero, Duration.checkedSeconds(resumedWall.timeIntervalSince(pending.since)) ?? .zero)
        let left = max(.zero, remaining(at: now) - off)
        copy.endBoot = now.boot + left
        copy.checkpointRemaining = left
        copy.checkpointWall = now.wall
        return copy
    }

    /// The session with its checkpoint refreshed at `now`.
    public func checkpointed(at now: ClockReading) -> Session { resumed(at: now) }

    /// The session lengthened by `extra`.
    public func extended(by extra: Duration, at now: ClockReading) -> Session {
        var copy = resumed(at: now)
        copy.endBoot = copy.endBoot + extra
        copy.checkpointRemaining = .nanoseconds(copy.checkpointRemaining.nanosecondsClamped.addingSaturating(extra.nanosecondsClamped))
        return copy
    }
}
