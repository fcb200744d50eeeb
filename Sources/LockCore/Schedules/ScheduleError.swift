/// Why a schedule could not be built from what the user typed.
///
/// The error names the command-line field the bad value came from, so `lockctl` can print
/// `from: 25:00 is not a time of day (hours 0–23)` and the user knows which flag to fix. It
/// has the shape and message format of `FieldError` (field, value, reason; `field: reason`),
/// with the field typed, so one converts to the other without loss.
public struct ScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input field a schedule value comes from; raw values are the `lockctl` flag names.
    public enum Field: String, Sendable, Hashable, CaseIterable, Codable {
        /// The weekday set of a weekly window (`--days`).
        case days
        /// The start time of a weekly window (`--from`).
        case from
        /// The end time of a weekly window (`--to`).
        case to
        /// A systemd calendar expression (`--on`).
        case on
        /// A five-field cron expression (`--cron`).
        case cron
        /// How long each calendar or cron interval lasts (`--length`; `for` in schedule files).
        case `for`
        /// The time zone a schedule is evaluated in (`--tz`).
        case tz
    }

    /// The field holding the offending value.
    public var field: Field
    /// The offending value, or the part of it that is wrong (`61` in `61 * * * *`).
    public var value: String
    /// A sentence saying what is wrong, which already mentions the value.
    public var reason: String

    /// Creates an error for `value` in `field`; `reason` must mention the value.
    public init(field: Field, value: String, reason: String) {
        self.field = field
        self.value = value
        self.reason = reason
    }

    /// `field: reason`, e.g. `cron: minute 61 out of range 0–59`.
    public var description: String { "\(field.rawValue): \(reason)" }

    /// The same error as a `FieldError`, for callers that report every refused value alike
    /// (the API, files with their lines).
    public var fieldError: FieldError { FieldError(field: field.rawValue, value: value, reason: reason) }
}
