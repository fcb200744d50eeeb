import Foundation

/// The block a schedule wants in force now: its profile until `end`.
public struct ScheduledBlock: Sendable, Equatable {
    /// The profile to block.
    public var profile: String
    /// When the block ends: the end of the interval containing now, or of the run of
    /// intervals that follow on from it without a gap.
    public var end: Date
    /// Whether a user may stop it.
    public var strict: Bool
    /// Where it blocks.
    public var target: BlockTarget

    /// Creates a block.
    public init(profile: String, end: Date, strict: Bool, target: BlockTarget = .thisMachine) {
        self.profile = profile
        self.end = end
        self.strict = strict
        self.target = target
    }
}
