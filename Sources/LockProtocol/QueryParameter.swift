import Foundation

/// A query parameter an endpoint accepts, and the values it may take. The server validates
/// every request's query against these before a handler runs; the client builds its queries
/// from the same declarations.
public struct QueryParameter: Sendable, Hashable {
    /// What values are allowed.
    public enum Kind: Sendable, Hashable {
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// Text of at most this many bytes.
        case text(maxBytes: Int)
        /// An RFC 3339 time.
        case timestamp
    }

    /// The parameter's name.
    public let name: String
    /// Its values.
    public let kind: Kind
    /// Whether a request must give it.
    public let required: Bool

    /// Declares a parameter.
    public init(_ name: String, _ kind: Kind, required: Bool = false) {
        self.name = name
        self.kind = kind
        self.required = required
    }
}

/// A validated query: each value already checked against its declaration.
public struct QueryValues: Sendable, Equatable {
    /// Values by parameter name, as given.
    public private(set) var raw: [String: String]

    /// Wraps values that were validated.
    public init(validated raw: [String: String] = [:]) { self.raw = raw }

    /// An integer parameter's value.
    public func integer(_ name: String) -> Int? { raw[name].flatMap { Int($0) } }

    /// A text parameter's value.
    public func text(_ name: String) -> String? { raw[name] }

    /// A timestamp parameter's value.
    public func timestamp(_ name: String) -> Date? { raw[name].flatMap(Timestamp.parse) }
}

/// RFC 3339 times as the API reads and writes them.
public enum Timestamp {
    /// Parses RFC 3339, with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Formats as RFC 3339 in UTC, with fractional seconds only when there are any.
    public static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions =
            date.timeIntervalSince1970.rounded() == date.timeIntervalSince1970
            ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
