import ArgumentParser
import LockCore

/// A duration argument (`45m`, `1h30m`, `90s`), parsed while arguments are parsed so that a
/// bad value is a usage error before anything is sent.
struct DurationArgument: ExpressibleByArgument, Sendable {
    var duration: Duration

    init?(argument: String) {
        guard let parsed = try? DurationParser.parse(argument) else { return nil }
        duration = parsed
    }

    static func validate(_ text: String, option: String) throws -> Duration {
        do { return try DurationParser.parse(text) } catch {
            throw ValidationError("\(option): \(error.description)")
        }
    }

    var seconds: Double { duration.seconds }
}
