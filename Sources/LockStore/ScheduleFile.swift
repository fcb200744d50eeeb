import LockCore

/// Reads and writes one schedule file (`schedules.d/NAME.toml`).
///
/// ```toml
/// name = "mornings"
/// profile = "deep-work"
/// days = "mon-fri"          # or: on = "Mon..Fri 09:30" with for = "45m"
/// from = "09:00"            # or: cron = "0 8-17/2 * * 1-5" with for = "30m"
/// to = "12:30"
/// tz = "Europe/Berlin"      # optional; default: the system's zone
/// strict = true             # optional; default: the profile's setting
/// warn = "5m"               # optional; default: schedule_warning in simplylockd.toml; "off"
/// enabled = true
/// target = ["kids"]         # optional; default: this machine ("local"); "lan" or [lan] groups
/// ```
public enum ScheduleFile {
    static let fields: Set<String> = [
        "name", "profile", "days", "from", "to", "on", "cron", "for", "tz", "strict", "warn", "enabled", "target",
    ]

    /// Parses and validates the schedule at `path`; the file must be named after the schedule.
    /// With `profiles`, the profile must be one of them.
    /// With `targets`, its target must be one this daemon can enforce.
    public static func load(_ path: String, profiles: Set<String>?, targets: TargetPolicy? = nil) throws(FileProblem) -> Schedule {
        let document = try TOMLDocument(contentsOf: path, trust: .daemonOnly)
        try document.requireOnly(fields)
        let name = try document.requiredString("name")
        do { try Schedule.validateName(name) } catch { throw document.problem(error) }
        let expected = String(path.split(separator: "/").last ?? "").replacingSuffix(".toml")
        guard name == expected else {
            throw document.problem("name", value: name, "\"\(name)\" does not match the file name \(expected).toml")
        }
        let profile = try document.requiredString("profile")
        if let profiles, !profiles.contains(profile) {
            throw document.problem("profile", value: profile, "no profile named \"\(profile)\" (see `lockctl profiles list`)")
        }
        var warning: Duration?
        if let text = try document.string("warn") {
            do { warning = try Schedule.parseWarning(text) } catch { throw document.problem(error) }
        }
        let days = try document.string("days"), from = try document.string("from"), to = try document.string("to")
        let on = try document.string("on"), cron = try document.string("cron"), tz = try document.string("tz")
        let duration = try document.duration("for")
        let strict = try document.bool("strict")
        let enabled = try document.bool("enabled") ?? true
        let targetNames = try document.strings("target")
        let target: BlockTarget
        do throws(FieldError) { target = try BlockTarget(parsing: targetNames) } catch {
            throw document.problem(error)
        }
        if let targets, let problem = targets.problem(with: target) {
            throw document.problem("target", value: target.description, problem.description)
        }
        do {
            return try Schedule(
                name: name, profile: profile, days: days, from: from, to: to, on: on, cron: cron,
                duration: duration, timeZoneName: tz, strict: strict, warning: warning, enabled: enabled,
                target: target)
        } catch {
            throw document.problem(error)
        }
    }

    /// The file text for a schedule.
    public static func render(_ schedule: Schedule) -> String {
        var writer = TOMLWriter(header: [
            "SimplyLock schedule. Written by `lockctl schedules …`; hand edits are picked up by",
            "`lockctl reload`. Say when with days/from/to, with on + for, or with cron + for.",
        ])
        writer.string("name", schedule.name)
        writer.string("profile", schedule.profile)
        switch schedule.rule {
        case .weekly(let window):
            writer.string("days", window.days.description)
            writer.string("from", window.from.description)
            writer.string("to", window.to.description)
        case .calendar(let spec, let duration):
            writer.string("on", spec.normalizedText)
            writer.string("for", DurationParser.formatExact(duration))
        case .cron(let expression, let duration):
            writer.string("cron", expression.text)
            writer.string("for", DurationParser.formatExact(duration))
        }
        writer.string("tz", schedule.timeZoneName)
        if let strict = schedule.strict { writer.bool("strict", strict) }
        if let warning = schedule.warning { writer.string("warn", warning == .zero ? "off" : DurationParser.formatExact(warning)) }
        writer.bool("enabled", schedule.enabled)
        if !schedule.target.isThisMachine { writer.strings("target", schedule.target.names) }
        return writer.output
    }
}
