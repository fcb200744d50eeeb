import Foundation

/// What one enforcer has in force, as it reports itself for status and doctor.
public struct EnforcerStatus: Sendable, Equatable {
    /// One fact an enforcer reports, typed so that counts stay numbers.
    public enum Detail: Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case count(Int)
        case time(Date)
        case seconds(Double)

        public var description: String {
            switch self {
            case .text(let text): text
            case .count(let count): String(count)
            case .time(let date): date.ISO8601Format()
            case .seconds(let seconds): String(format: "%.3f", seconds)
            }
        }
    }

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
    /// Enforcer-specific facts (`path`, `restores`, `lastResolution`, …).
    public var details: [String: Detail]

    /// Creates a status.
    public init(
        name: String, applied: Bool, elements: Int, lastApplied: Date?, lastError: String?,
        details: [String: Detail] = [:]
    ) {
        self.name = name
        self.applied = applied
        self.elements = elements
        self.lastApplied = lastApplied
        self.lastError = lastError
        self.details = details
    }
}
