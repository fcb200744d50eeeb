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
            do { result.append(try parser.parseEntry(value)) } catch { throw APIError(.invalidArgument, "\(field): \(error)") }
        }
        return result
    }

    static func pathRules(_ values: [String], field: String, parser: DomainNameParser) throws(APIError) -> [PathRule] {
        var result: [PathRule] = []
        for value in values {
            do { result.append(try parser.parsePathRule(value, field: field)) } catch {
                throw APIError(.invalidArgument, "\(field): \(error.reason)")
            }
        }
        return result
    }

    static func keywords(_ values: [String], field: String) throws(APIError) -> [KeywordRule] {
        var result: [KeywordRule] = []
        for value in values {
            do { result.append(try KeywordRule(parsing: value, field: field)) } catch {
                throw APIError(.invalidArgument, "\(field): \(error.reason)")
            }
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

    /// App names as typed (ids, paths or display names): what can never name an app is
    /// refused here; whether one is installed is the profile service's question.
    static func apps(_ values: [String], field: String) throws(APIError) -> [String] {
        for value in values {
            do throws(FieldError) { try AppName.validateTyped(value, field: field) } catch {
                throw APIError(.invalidArgument, error.description)
            }
        }
        return values
    }

    /// Freedesktop categories in any case, refused with the closest registered ones.
    static func appCategories(_ values: [String], field: String) throws(APIError) -> [AppCategory] {
        var result: [AppCategory] = []
        for value in values {
            do throws(FieldError) { result.append(try AppCategory(parsing: value)) } catch {
                throw APIError(.invalidArgument, "\(field): \(error.reason)")
            }
        }
        return result
    }

    /// `terminate` or `freeze`; nil when not given.
    static func running(_ value: String?) throws(APIError) -> BlockedApp.RunningPolicy? {
        guard let value else { return nil }
        guard let policy = BlockedApp.RunningPolicy(rawValue: value) else {
            throw APIError(.invalidArgument, "running: \"\(value)\" is not a policy for running apps (terminate or freeze)")
        }
        return policy
    }

    /// A number of seconds from a request: finite, at least `minimum`, at most `maximum`.
    static func seconds(_ value: Double, field: String, minimum: Double = 1, maximum: Duration) throws(APIError) -> Duration {
        guard value.isFinite else { throw APIError(.invalidArgument, "\(field): \(value) is not a number of seconds") }
        guard value >= minimum else {
            throw APIError(
                .invalidArgument, "\(field): must be at least \(DurationParser.formatExact(Duration.checkedSeconds(minimum) ?? .zero))")
        }
        guard value <= maximum.seconds, let duration = Duration.checkedSeconds(value) else {
            let shown = value < 1e12 ? Duration.checkedSeconds(value).map(DurationParser.formatExact) : nil
            throw APIError(
                .invalidArgument, "\(field): \(shown ?? "\(value) seconds") is longer than the \(DurationParser.format(maximum)) limit",
                hint: "max_session in simplylockd.toml sets the limit")
        }
        return duration
    }
}
