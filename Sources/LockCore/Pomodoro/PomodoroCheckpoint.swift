import Foundation

/// What a run looked like at the last moment it was saved, in terms that survive a reboot.
///
/// A boot-clock deadline means nothing after a reboot, so the remaining time is recorded
/// together with the wall time and boot it was measured at.
public struct PomodoroCheckpoint: Sendable, Equatable, Codable {
    /// Wall-clock time of the checkpoint.
    public var wall: Date
    /// Boot-clock time of the checkpoint (only meaningful within `bootID`).
    public var boot: BootTime
    /// The boot the checkpoint was taken in.
    public var bootID: String
    /// Time left in the current phase at the checkpoint; zero while waiting or finished.
    public var remaining: Duration

    /// Creates a checkpoint.
    public init(wall: Date, boot: BootTime, bootID: String, remaining: Duration) {
        self.wall = wall
        self.boot = boot
        self.bootID = bootID
        self.remaining = remaining
    }

    private enum CodingKeys: String, CodingKey {
        case wall, boot, bootID, remainingNanoseconds
    }

    /// Decodes; the remaining time is stored in whole nanoseconds so it round-trips exactly.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        wall = try c.decode(Date.self, forKey: .wall)
        boot = try c.decode(BootTime.self, forKey: .boot)
        bootID = try c.decode(String.self, forKey: .bootID)
        let ns = try c.decode(Int64.self, forKey: .remainingNanoseconds)
        guard ns >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .remainingNanoseconds, in: c, debugDescription: "remaining time is negative")
        }
        remaining = .nanoseconds(ns)
    }

    /// Encodes with the remaining time in nanoseconds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(wall, forKey: .wall)
        try c.encode(boot, forKey: .boot)
        try c.encode(bootID, forKey: .bootID)
        try c.encode(remaining.nanosecondsClamped, forKey: .remainingNanoseconds)
    }
}
