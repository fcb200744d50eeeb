import Foundation

/// A snapshot of one enforcer's state.
public struct EnforcerReport: Sendable, Equatable, Codable {
    /// A detail's value: a number stays a number in JSON, everything else is text.
    public enum Value: Sendable, Equatable, Codable, CustomStringConvertible {
        case text(String)
        case number(Double)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number):
                if number.rounded() == number, abs(number) < 1e15 {
                    try container.encode(Int64(number))
                } else {
                    try container.encode(number)
                }
            }
        }

        public var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
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
    public var details: [String: Value]
    /// `ok`, `idle` (nothing to enforce or not applied yet) or `problem`: the daemon's one
    /// judgement, which `lockctl doctor` shares.
    public var state: String?
    /// What is wrong when `state` is `problem`.
    public var problem: String?

    /// Creates a report.
    public init(
        name: String, applied: Bool, elements: Int, lastApplied: Date?, lastError: String?,
        details: [String: Value] = [:], state: String? = nil, problem: String? = nil
    ) {
        self.state = state
        self.problem = problem
        self.name = name
        self.applied = applied
        self.elements = elements
        self.lastApplied = lastApplied
        self.lastError = lastError
        self.details = details
    }
}
