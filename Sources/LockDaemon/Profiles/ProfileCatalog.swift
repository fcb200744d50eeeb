import LockCore

/// A profile with its rules expanded through the service catalog.
public struct ProfileExpansion: Sendable, Equatable {
    /// The profile.
    public var profile: Profile
    /// What it blocks.
    public var rules: BlockRules
}

/// The narrow questions other services ask about profiles. Sessions, schedules and the
/// Pomodoro timer depend on this, not on the whole profile service.
public protocol ProfileCatalog: Sendable {
    /// The profile called `name` with its rules, or nil.
    func expansion(of name: String) async -> ProfileExpansion?
    /// Whether a profile called `name` exists.
    func exists(_ name: String) async -> Bool
    /// Each profile's default strictness, by name (cheap: nothing is expanded).
    func strictDefaults() async -> [String: Bool]
}
