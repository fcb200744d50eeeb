import Foundation

/// One active block: a snapshot of a profile's rules, what started it, and when it ends.
///
/// The end is a deadline on the boot clock, valid only within the boot it was set in. A
/// checkpoint (the time that was left, and the wall time it was taken at) carries a session
/// across a reboot: it then resumes with what was left minus the wall time that passed while
/// the machine was off, never negative and never more than it had.
public struct Session: Sendable, Equatable, Codable, Identifiable {
    /// Short unique identifier (`3f9a1c2b7d4e`).
    public var id: String
    /// Name of the profile it blocks.
    public var profile: String
    /// What started it.
    public var origin: SessionOrigin
    /// A strict session cannot be stopped before its end, only extended.
    public var strict: Bool
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

    /// Starts a session of `duration` at `now`.
    public init(id: String, profile: String, origin: SessionOrigin, strict: Bool, rules: BlockRules,
                duration: Duration, now: ClockReading) {
        self.id = id
        self.profile = profile
        self.origin = origin
        self.strict = strict
        self.rules = rules
        self.startedAt = now.wall
        self.endBoot = now.boot + duration
        self.bootID = now.bootID
        self.checkpointRemaining = duration
        self.checkpointWall = now.wall
    }

    /// Time left at `now` (zero once it has ended). Across a reboot this is the checkpoint
    /// rule; call `resumed(at:)` first to re-anchor the session in the new boot.
    public func remaining(at now: ClockReading) -> Duration {
        if now.bootID == bootID { return max(.zero, endBoot - now.boot) }
        let off = max(.zero, Duration.seconds(now.wall.timeIntervalSince(checkpointWall)))
        return min(checkpointRemaining, max(.zero, checkpointRemaining - off))
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
        copy.endBoot = now.boot + left
        copy.bootID = now.bootID
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
        copy.checkpointRemaining += extra
        return copy
    }
}
