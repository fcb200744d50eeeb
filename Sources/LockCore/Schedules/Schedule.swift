import Foundation

/// A named schedule: when a profile is blocked, in which time zone, how strictly, and how long
/// before each start and end a warning goes out.
///
/// It holds no state: whether it is blocking right now is computed from the rule and the
/// current instant every time (`SchedulePlanner`).
public struct Schedule: Sendable, Equatable, Codable {
    /// Identifier (`mornings`), also the file name and the session origin `schedule:NAME`.
    public var name: String
    /// The profile it blocks.
    public var profile: String
    /// When it blocks.
    public var rule: ScheduleRule
    /// The zone given with `--tz`; nil means the system's zone at the moment of evaluation, so a
    /// schedule follows the machine when its zone changes.
    public var timeZoneName: String?
    /// Strict or not; nil takes the profile's default, as manual blocks do.
    public var strict: Bool?
    /// How long before each start and end a warning is sent; nil takes the daemon's default,
    /// zero sends none.
    public var warning: Duration?
    /// A disabled schedule blocks nothing and ends the session it owns.
    public var enabled: Bool
    /// Where its blocks apply: this machine (the default), the LAN, device groups.
    public var target: BlockTarget

    /// The longest warning lead accepted.
    public static let maximumWarning = Duration.seconds(86_400)

    /// Creates a schedule from values that are already valid.
    public init(
        name: String, profile: String, rule: ScheduleRule, timeZoneName: String? = nil, strict: Bool? = nil,
        warning: Duration? = nil, enabled: Bool = true, target: BlockTarget = .thisMachine
    ) {
        self.target = target
        self.name = name
        self.profile = profile
        self.rule = rule
        self.timeZoneName = timeZoneName
        self.strict = strict
        self.warning = warning
        self.enabled = enabled
    }

    /// Builds a schedule from what a user gave, field by field (the `lockctl schedules add`
    /// options, the keys of a schedule file, the API request), refusing the first bad value with
    /// its field: one of the three ways to say when (`days`+`from`+`to`, `on`+`for`,
    /// `cron`+`for`), an optional zone and warning lead.
    public init(
        name: String, profile: String, days: String? = nil, from: String? = nil, to: String? = nil,
        on: String? = nil, cron: String? = nil, duration: Duration? = nil, timeZoneName: String? = nil,
        strict: Bool? = nil, warning: Duration? = nil, enabled: Bool = true,
        target: BlockTarget = .thisMachine
    ) throws(FieldError) {
        try Schedule.validateName(name)
        guard !profile.isEmpty else { throw FieldError(field: "profile", reason: "a schedule needs a profile to block") }
        let weekly = days != nil || from != nil || to != nil
        let ways = [weekly ? "--days/--from/--to" : nil, on.map { _ in "--on" }, cron.map { _ in "--cron" }].compactMap { $0 }
        guard !ways.isEmpty else {
            throw FieldError(
                field: "days",
                reason: "say when: --days D --from HH:MM --to HH:MM, --on EXPR --length DURATION, or --cron EXPR --length DURATION"
            )
        }
        guard ways.count == 1 else {
            throw FieldError(field: cron != nil ? "cron" : "on", reason: "give one way to say when, not \(ways.joined(separator: " and "))")
        }
        do {
            if weekly {
                guard let days else { throw FieldError(field: "days", reason: "is required with --from and --to (e.g. mon-fri, all)") }
                guard let from else { throw FieldError(field: "from", reason: "is required with --days (e.g. 09:00)") }
                guard let to else { throw FieldError(field: "to", reason: "is required with --days (e.g. 12:30)") }
                if let duration {
                    throw FieldError(
                        field: "for", value: DurationParser.formatExact(duration),
                        reason: "applies to --on and --cron only; a weekly window ends at --to")
                }
                rule = try ScheduleRule(days: days, from: from, to: to)
            } else {
                guard let duration else {
                    throw FieldError(
                        field: "for", reason: "is required with \(on != nil ? "--on" : "--cron"): how long each block lasts (e.g. 45m)")
                }
                let (_, attoseconds) = duration.components
                guard attoseconds == 0 else {
                    throw FieldError(field: "for", value: "\(duration)", reason: "\(duration) is not a whole number of seconds")
                }
                if let on {
                    rule = try ScheduleRule(on: on, for: duration)
                } else {
                    rule = try ScheduleRule(cron: cron ?? "", for: duration)
                }
            }
            if let timeZoneName {
                _ = try ScheduleRule.timeZone(named: timeZoneName)
                if case .calendar(let spec, _) = rule, let own = spec.timeZoneName, own != timeZoneName {
                    throw FieldError(
                        field: "tz", value: timeZoneName,
                        reason: "\(timeZoneName) conflicts with the zone \(own) named at the end of --on; give one of them")
                }
            }
        } catch let error as ScheduleError {
            throw error.fieldError
        } catch let error as FieldError {
            throw error
        } catch {
            throw FieldError(field: "days", reason: "\(error)")
        }
        if let warning {
            guard warning >= .zero, warning <= Schedule.maximumWarning else {
                throw FieldError(
                    field: "warn", value: DurationParser.formatExact(warning),
                    reason: "\(DurationParser.formatExact(warning)) is not between 0 (no warnings) and 1d")
            }
        }
        self.name = name
        self.profile = profile
        self.timeZoneName = timeZoneName
        self.strict = strict
        self.warning = warning
        self.enabled = enabled
        self.target = target
    }

    private enum CodingKeys: String, CodingKey { case name, profile, rule, timeZoneName, strict, warning, enabled, target }

    // Schedules saved before targets existed block this machine.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        profile = try container.decode(String.self, forKey: .profile)
        rule = try container.decode(ScheduleRule.self, forKey: .rule)
        timeZoneName = try container.decodeIfPresent(String.self, forKey: .timeZoneName)
        strict = try container.decodeIfPresent(Bool.self, forKey: .strict)
        warning = try container.decodeIfPresent(Duration.self, forKey: .warning)
        enabled = try container.decode(Bool.self, forKey: .enabled)
        target = try container.decodeIfPresent(BlockTarget.self, forKey: .target) ?? .thisMachine
    }

    /// Checks a schedule name: 1–40 characters of a-z, 0-9 and '-', not starting with '-' (it
    /// names a file and appears in `schedule:NAME`).
    public static func validateName(_ name: String) throws(FieldError) {
        try NameRule.validate(name, kind: "schedule")
    }

    /// The zone the rule is evaluated in: one named at the end of a calendar expression wins,
    /// then `--tz`, then the system's zone.
    public func zone(system: TimeZone) -> TimeZone {
        if case .calendar(let spec, _) = rule, let own = spec.timeZone { return own }
        return timeZoneName.flatMap { try? ScheduleRule.timeZone(named: $0) } ?? system
    }

    /// The name of its own zone as written (the one at the end of a calendar expression, else
    /// `--tz`); nil when it follows the system's zone.
    public var ownZoneName: String? {
        if case .calendar(let spec, _) = rule, let own = spec.timeZoneName { return own }
        return timeZoneName
    }

    /// When it blocks, for people: `mon-fri 09:00–12:30`, `Mon..Fri *-*-* 09:30:00 for 45m`,
    /// `cron 0 8-17/2 * * 1-5 for 30m`.
    public var summary: String {
        switch rule {
        case .weekly(let window): window.description
        case .calendar(let spec, let duration): "\(spec.normalizedText) for \(DurationParser.formatExact(duration))"
        case .cron(let cron, let duration): "cron \(cron.text) for \(DurationParser.formatExact(duration))"
        }
    }

    /// Parses a warning lead as written on the command line or in a file: a duration (`5m`),
    /// or `0`/`off` for none.
    public static func parseWarning(_ text: String) throws(FieldError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if ["0", "off", "none", "no"].contains(trimmed) { return .zero }
        let lead: Duration
        do { lead = try DurationParser.parse(text) } catch { throw FieldError(field: "warn", value: text, reason: error.description) }
        guard lead <= maximumWarning else {
            throw FieldError(field: "warn", value: text, reason: "\"\(text)\" is longer than 1d")
        }
        return lead
    }
}
