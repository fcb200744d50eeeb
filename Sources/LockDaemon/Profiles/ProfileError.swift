import LockCore

/// Why a change to the profiles was refused.
public enum ProfileError: Error, Equatable, Sendable {
    /// No profile has that name.
    case notFound(String)
    /// A custom profile with that name exists.
    case exists(String)
    /// System profiles are read-only.
    case system(String)
    /// A value is invalid.
    case invalid(FieldError)
    /// An edit removes something the profile does not have.
    case notInProfile(field: String, value: String, profile: String)
    /// A session of the profile is active.
    case blocking(Session)
    /// A schedule or the Pomodoro timer uses the profile.
    case usedBy(profile: String, user: String)
    /// The file could not be written or removed.
    case io(String)
    /// A strict block of the profile is running and the edit would take something from it
    /// (each item says what: `unblocks reddit.com`, `turns strict off`). Edits that only add
    /// apply at once; these wait until the block ends.
    case weakensStrictBlock(Session, changes: [String])
    /// The change was saved but could not be enforced on the running sessions, so it was undone.
    case enforcement(String)
}
