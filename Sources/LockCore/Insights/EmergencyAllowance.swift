import Foundation

/// One early end of a strict block (emergency access), as the allowance counts it.
public struct UnlockRecord: Sendable, Equatable, Codable {
    /// The session that was ended.
    public var session: String
    /// Its profile.
    public var profile: String
    /// When, on the wall clock.
    public var at: Date
    /// When, on the boot clock of `bootID`.
    public var boot: BootTime
    /// The boot it happened in.
    public var bootID: String

    /// Creates a record.
    public init(session: String, profile: String, at: Date, boot: BootTime, bootID: String) {
        self.session = session
        self.profile = profile
        self.at = at
        self.boot = boot
        self.bootID = bootID
    }

    /// The time since the unlock as far as it can be trusted at `now`: on the boot clock within
    /// the same boot; across a reboot, on the wall clock only while it is synchronised (a user
    /// who moves the clock forward must not win back the allowance), else none at all.
    public func elapsed(at now: ClockReading) -> Duration {
        if now.bootID == bootID { return max(.zero, now.boot - boot) }
        guard now.wallIsSynchronised else { return .zero }
        return max(.zero, Duration.checkedSeconds(now.wall.timeIntervalSince(at)) ?? .zero)
    }
}

/// The rolling seven-day allowance of early ends.
public enum EmergencyAllowance {
    /// The window the allowance counts over.
    public static let window: Duration = .seconds(7 * 86_400)

    /// The records that still count at `now`, oldest first.
    public static func counting(_ records: [UnlockRecord], at now: ClockReading) -> [UnlockRecord] {
        records.filter { $0.elapsed(at: now) < window }.sorted { $0.at < $1.at }
    }

    /// Where the allowance stands for a policy, given the records that apply to it.
    public static func status(_ records: [UnlockRecord], policy: FrictionPolicy, at now: ClockReading) -> Status {
        let counting = counting(records, at: now)
        var nextFree: Date?
        if counting.count >= policy.perWeek, policy.perWeek > 0 {
            // The record whose leaving frees a place: with n allowed and m counting, the
            // (m - n + 1)-th oldest.
            let freeing = counting[counting.count - policy.perWeek]
            nextFree = now.wall.addingTimeInterval((window - freeing.elapsed(at: now)).seconds)
        }
        return Status(used: counting.count, allowed: policy.perWeek, nextFree: nextFree)
    }

    /// How much of the allowance is used.
    public struct Status: Sendable, Equatable {
        /// Early ends in the last seven days.
        public var used: Int
        /// Early ends allowed in seven days.
        public var allowed: Int
        /// When the next one is allowed again, when none is now (nil when `allowed` is 0).
        public var nextFree: Date?

        /// Whether another early end is allowed now.
        public var allowsAnother: Bool { used < allowed }
    }
}
