import Foundation

/// A snapshot of one enforcer's state.
public struct EnforcerReport: Sendable, Equatable, Codable {
    /// The enforcer's name (`hosts`, `nftables`).
    public var name: String
    /// True when the last apply succeeded and nothing outside has undone it since.
    public var applied: Bool
    /// How many things are in force: names in the hosts section, addresses in nftables sets.
    public var elements: Int
    /// When the last successful apply finished.
    public var lastApplied: Date?
    /// The last error, if the last apply or restore failed.
    public var lastError: String?
    /// Enforcer-specific facts (`path`, `restores`, `lastResolution`, …), rendered as given.
    public var details: [String: String]

    /// Creates a report.
    public init(name: String, applied: Bool, elements: Int, lastApplied: Date?, lastError: String?,
                details: [String: String] = [:]) {
        self.name = name
        self.applied = applied
        self.elements = elements
        self.lastApplied = lastApplied
        self.lastError = lastError
        self.details = details
    }
}
