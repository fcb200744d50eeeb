import LockCore

/// Reads and writes one allowance file (`allowances.d/NAME.toml`).
///
/// ```toml
/// name = "video-time"
/// profile = "video"
/// daily = "30m"             # optional; time per local day
/// weekly = "5h"             # optional; time per week (from Monday 00:00)
/// days = "mon-fri"          # optional; default: every day
/// warn = "5m"               # optional
/// strict = false            # optional; the block it starts when used up
/// target = ["kids"]         # optional; default: this machine
/// opens = 3                 # optional; launches of its apps per day
/// cooldown = "1h"           # optional; least time between launches
/// ```
public enum AllowanceFile {
    static let fields: Set<String> = ["name", "profile", "daily", "weekly", "days", "warn", "strict", "target", "opens", "cooldown"]

    /// Parses and validates the allowance at `path`; the file must be named after it. With
    /// `profiles`, the profile must be one of them; with `targets`, its target one this daemon
    /// can enforce.
    public static func load(_ path: String, profiles: Set<String>?, targets: TargetPolicy? = nil) throws(FileProblem) -> Allowance {
        let document = try TOMLDocument(contentsOf: path, trust: .daemonOnly)
        try document.requireOnly(fields)
        let name = try document.requiredString("name")
        let expected = String(path.split(separator: "/").last ?? "").replacingSuffix(".toml")
        guard name == expected else {
            throw document.problem("name", value: name, "\"\(name)\" does not match the file name \(expected).toml")
        }
        let profile = try document.requiredString("profile")
        if let profiles, !profiles.contains(profile) {
            throw document.problem("profile", value: profile, "no profile named \"\(profile)\" (see `lockctl profiles list`)")
        }
        var days = WeekdaySet.all
        if let text = try document.string("days") {
            do { days = try WeekdaySet(parsing: text) } catch { throw document.problem("days", value: text, error.reason) }
        }
        let target: BlockTarget
        let targetNames = try document.strings("target")
        do throws(FieldError) { target = try BlockTarget(parsing: targetNames) } catch {
            throw document.problem(error)
        }
        if let targets, let problem = targets.problem(with: target) {
            throw document.problem("target", value: target.description, problem.description)
        }
        let allowance = Allowance(
            name: name, profile: profile, daily: try document.duration("daily"), weekly: try document.duration("weekly"), days: days,
            warn: try document.duration("warn"), strict: try document.bool("strict") ?? false, target: target,
            opens: try document.int("opens"), cooldown: try document.duration("cooldown"))
        do { try allowance.validate() } catch { throw document.problem(error) }
        return allowance
    }

    /// The file text for an allowance.
    public static func render(_ allowance: Allowance) -> String {
        var writer = TOMLWriter(header: [
            "SimplyLock allowance. Written by `lockctl allowances …`; hand edits are picked up by",
            "`lockctl reload`. When the time is used up, a block of the profile runs until it resets.",
        ])
        writer.string("name", allowance.name)
        writer.string("profile", allowance.profile)
        writer.string("daily", allowance.daily.map(DurationParser.formatExact))
        writer.string("weekly", allowance.weekly.map(DurationParser.formatExact))
        if allowance.days != .all { writer.string("days", allowance.days.description) }
        writer.string("warn", allowance.warn.map(DurationParser.formatExact))
        if allowance.strict { writer.bool("strict", true) }
        if !allowance.target.isThisMachine { writer.strings("target", allowance.target.names) }
        if let opens = allowance.opens { writer.int("opens", opens) }
        writer.string("cooldown", allowance.cooldown.map(DurationParser.formatExact))
        return writer.output
    }
}
