import Foundation
import LockCore
import LockNames
import LockProtocol

/// Turns what a client typed into domain values, refusing bad ones with the field they came
/// from. Numbers are checked before any conversion: every number from a client is hostile.
enum InputParsing {
    static func domains(_ values: [String], field: String, parser: DomainNameParser) throws(APIError) -> [DomainName] {
        var result: [DomainName] = []
        for value in values {
            do { result.append(try parser.parse(value)) } catch { throw APIError(.invalidArgument, "\(field): \(error)") }
        }
        return result
    }

    static func networks(_ values: [String], field: String) throws(APIError) -> [IPNetwork] {
        var result: [IPNetwork] = []
        for value in values {
            do { result.append(try IPNetwork(parsing: value)) } catch { throw APIError(.invalidArgument, "\(field): \(error)") }
        }
        return result
    }

    /// A number of seconds from a request: finite, at least `minimum`, at most `maximum`.
    static func seconds(_ value: Double, field: String, minimum: Double = 1, maximum: Duration) throws(APIError) -> Duration {
        guard value.isFinite else { throw APIError(.invalidArgument, "\(field): \(value) is not a number of seconds") }
        guard value >= minimum else {
            throw APIError(.invalidArgument, "\(field): must be at least \(DurationParser.formatExact(Duration.checkedSeconds(minimum) ?? .zero))")
        }
        guard value <= maximum.seconds, let duration = Duration.checkedSeconds(value) else {
            let shown = value < 1e12 ? Duration.checkedSeconds(value).map(DurationParser.formatExact) : nil
            throw APIError(.invalidArgument, "\(field): \(shown ?? "\(value) seconds") is longer than the \(DurationParser.format(maximum)) limit",
                           hint: "max_session in simplylockd.toml sets the limit")
        }
        return duration
    }
}
