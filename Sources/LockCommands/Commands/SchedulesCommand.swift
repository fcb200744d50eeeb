import ArgumentParser
import Foundation
import LockCore
import LockProtocol

/// `lockctl schedules …`: blocks that start and end by themselves.
struct SchedulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedules",
        abstract: "Add, list, show, change and remove schedules: blocks that start and end by themselves.",
        subcommands: [List.self, Show.self, Add.self, Edit.self, Next.self, Enable.self, Disable.self, Remove.self],
        defaultSubcommand: List.self)

    /// How schedule commands name the request fields.
    static let fields = FieldNames(["seconds": "--length", "for": "--length", "warnSeconds": "--warn", "name": "<name>", "target": "--for"])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a schedule.",
            discussion: """
                Say when in one of three ways:
                  --days mon-fri --from 09:00 --to 12:30   weekly windows
                  --on 'Mon..Fri 09:30' --length 45m       a systemd calendar expression
                  --cron '0 8-17/2 * * 1-5' --length 30m   a five-field cron expression
                A window whose --to is before its --from runs overnight; systemd.time(7)
                explains --on. A strict schedule whose window is open already blocks from
                its next interval, unless --now starts the block at once.
                Examples:
                  lockctl schedules add mornings --profile deep-work \\
                      --days mon-fri --from 09:00 --to 12:30
                  lockctl schedules add exam --profile focus \\
                      --on '2027-01-15 08:00' --length 3h --strict
                  lockctl schedules add school-nights --profile social \\
                      --days sun-thu --from 20:00 --to 07:00 --for kids
                --for names the devices, as in `lockctl start`; the length of each block is --length.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name: a-z, 0-9 and '-'.") var name: String
        @Option(help: "Profile to block (see `lockctl profiles list`).", completion: Completions.profiles) var profile: String
        @OptionGroup var when: When
        @Option(help: "Time zone such as Europe/Berlin (default: the system's, followed when it changes).") var tz: String?
        @Flag(
            inversion: .prefixedNo,
            help: """
                --strict: its blocks cannot be stopped early; --no-strict: they can, even for a strict profile \
                (default: the profile's setting).
                """)
        var strict: Bool?
        @Option(help: "Warn this long before each start and end (5m, or off; default: schedule_warning, 5m).") var warn: String?
        @Flag(help: "If the schedule is strict and its window is open now, start the strict block at once.") var now = false
        @Option(
            name: .customLong("for"),
            help: ArgumentHelp(
                "Where its blocks apply: device groups from [lan] in simplylockd.toml, lan, local (the default); comma-separated or repeated.",
                valueName: "target"))
        var targets: [String] = []
        /// The former spelling of --for (the file's key is `target`); takes any group name.
        @Option(help: .hidden) var target: [String] = []

        func validate() throws { try SchedulesCommand.refuseLengthAsTarget(targets) }

        func run() async throws {
            // Checked here too, so mistakes are reported the same way without a round trip.
            let length = try when.duration.map { try SchedulesCommand.parse($0, field: "--length") }
            let lead = try warn.map { text in try usage { () throws(FieldError) in try Schedule.parseWarning(text) } }
            _ = try usage { () throws(FieldError) in
                try Schedule(
                    name: name, profile: profile, days: when.days, from: when.from, to: when.to, on: when.on, cron: when.cron,
                    duration: length, timeZoneName: tz, strict: strict, warning: lead)
            }
            let request = CreateScheduleRequest(
                name: name, profile: profile, days: when.days, from: when.from, to: when.to,
                on: when.on, cron: when.cron, seconds: length?.seconds, tz: tz, strict: strict,
                warnSeconds: lead?.seconds, now: now, target: TargetArgument.names(targets + target))
            let schedule = try await global.call(fields: SchedulesCommand.fields) { try await $0.createSchedule(request) }
            if try global.printJSON(schedule) { return }
            print("schedule \(schedule.name) added: \(schedule.profile), \(schedule.summary)")
            print(SchedulesCommand.state(schedule, now: Date()))
        }
    }

    /// The ways to say when, shared by `add` and `edit`.
    struct When: ParsableArguments {
        @Option(help: "Weekly window: days (mon-fri, sat,sun, fri-mon, weekdays, weekends, all).") var days: String?
        @Option(help: "Weekly window: start time (HH:MM).") var from: String?
        @Option(help: "Weekly window: end time (HH:MM; earlier than --from runs overnight).") var to: String?
        @Option(help: "Calendar expression (OnCalendar= syntax), e.g. 'Mon..Fri 09:30' or '2027-01-15 08:00'.") var on: String?
        @Option(help: "Cron expression (minute hour day-of-month month day-of-week).") var cron: String?
        @Option(name: .customLong("length"), help: "With --on or --cron: how long each block lasts (45m, 3h).") var duration: String?

        var isEmpty: Bool { days == nil && from == nil && to == nil && on == nil && cron == nil && duration == nil }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Change a schedule: when, profile, zone, strictness or warnings.",
            discussion: """
                Options not given stay as they are: --to 13:00 moves only the end of a weekly window, --length 1h only \
                the length of a calendar or cron schedule; --on or --cron replaces the rule. While the schedule's \
                block is strict and running it cannot be weakened: it keeps its end and strictness, and moving it \
                to another profile is refused. Making a schedule strict while its window is open takes effect at \
                the next interval, unless --now.
                Example:
                  lockctl schedules edit mornings --to 13:00 --warn 10m
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name.", completion: Completions.schedules) var name: String
        @Option(help: "Profile to block.", completion: Completions.profiles) var profile: String?
        @OptionGroup var when: When
        @Option(help: "Time zone such as Europe/Berlin, or 'system' to follow the system's.") var tz: String?
        @Flag(inversion: .prefixedNo, help: "--strict: its blocks cannot be stopped early; --no-strict: they can.") var strict: Bool?
        @Option(help: "Warn this long before each start and end (5m, or off).") var warn: String?
        @Flag(help: "If the change makes a strict block due now, start it at once.") var now = false
        @Option(name: .customLong("for"), help: .hidden) var formerLength: String?

        func validate() throws {
            if let formerLength { throw ValidationError(SchedulesCommand.lengthMoved(formerLength)) }
            if when.isEmpty, profile == nil, tz == nil, strict == nil, warn == nil, !now {
                throw ValidationError(
                    "nothing to change: give --days/--from/--to, --on, --cron, --length, --profile, --tz, --strict or --warn")
            }
        }

        func run() async throws {
            let length = try when.duration.map { try SchedulesCommand.parse($0, field: "--length") }
            let lead = try warn.map { text in try usage { () throws(FieldError) in try Schedule.parseWarning(text) } }
            let request = UpdateScheduleRequest(
                profile: profile, days: when.days, from: when.from, to: when.to, on: when.on,
                cron: when.cron, seconds: length?.seconds, tz: tz == "system" ? "" : tz, strict: strict,
                warnSeconds: lead?.seconds, now: now)
            let schedule = try await global.call(fields: SchedulesCommand.fields) { try await $0.updateSchedule(name, request) }
            if try global.printJSON(schedule) { return }
            print("schedule \(schedule.name) changed: \(schedule.profile), \(schedule.summary)")
            print(SchedulesCommand.state(schedule, now: Date()))
        }
    }

    /// `--for` names devices everywhere (`start`, `pomodoro start`, `check`); the length of each
    /// block used to be `--for` here. A value that reads as a length is refused with the new
    /// name rather than taken as a device group (a group called `45m` is still reached with the
    /// hidden `--target 45m`).
    static func refuseLengthAsTarget(_ targets: [String]) throws {
        for value in targets.flatMap({ $0.split(separator: ",") }) where (try? DurationParser.parse(String(value))) != nil {
            throw ValidationError(lengthMoved(String(value)))
        }
    }

    static func lengthMoved(_ value: String) -> String {
        "--for names the devices a block is for; the length of each block is --length \(value)"
    }

    static func parse(_ text: String, field: String) throws -> Duration {
        do { return try DurationParser.parse(text) } catch {
            throw CommandFailure(code: ExitCodes.usage, "\(field): \(error.description)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List schedules: enabled, active now, next start and end.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.call { try await $0.schedules() }
            if try global.printJSON(list) { return }
            if list.schedules.isEmpty {
                print("no schedules (add one with `lockctl schedules add`)")
            } else {
                let now = Date()
                let rows =
                    [["NAME", "PROFILE", "WHEN", "STATE", "NEXT START", "NEXT END"]]
                    + list.schedules.map { schedule in
                        [
                            schedule.name, schedule.profile, SchedulesCommand.when(schedule),
                            SchedulesCommand.stateWord(schedule, now: now),
                            schedule.next.map { TextFormat.clock($0.start, now: now) } ?? "-",
                            schedule.next.map { TextFormat.clock($0.end, now: now) } ?? "-",
                        ]
                    }
                print(TextFormat.table(rows, header: true))
            }
            for problem in list.problems { print("problem: \(TextFormat.shown(problem))") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one schedule and where it stands.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name.", completion: Completions.schedules) var name: String

        func run() async throws {
            let schedule = try await global.call { try await $0.schedule(name) }
            if try global.printJSON(schedule) { return }
            print(Show.render(schedule, now: Date()))
        }

        static func render(_ schedule: ScheduleInfo, now: Date) -> String {
            let dot = schedule.active && !schedule.stoppedByHand ? "●" : "○"
            var rows: [[String]] = [
                ["Profile:", schedule.profile],
                ["When:", schedule.summary],
                ["Zone:", schedule.timeZone + (schedule.tz == nil ? " (system)" : "")],
                ["State:", SchedulesCommand.stateWord(schedule, now: now) + (schedule.session.map { " (session \($0))" } ?? "")],
            ]
            if let next = schedule.next {
                rows.append(["Next:", "\(TextFormat.clock(next.start, now: now)) → \(TextFormat.clock(next.end, now: now))"])
            }
            rows.append(["Strict:", schedule.strict ? "yes" : "no"])
            rows.append([
                "Warn:",
                schedule.warnSeconds > 0 ? "\(TextFormat.duration(seconds: schedule.warnSeconds)) before each start and end" : "off",
            ])
            rows.append(["Flags:", schedule.flags + (schedule.tz.map { " --tz \($0)" } ?? "")])
            if let problem = schedule.problem { rows.append(["Problem:", problem]) }
            return "\(dot) \(schedule.name)\n" + TextFormat.table(rows, indent: "    ")
        }
    }

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next", abstract: "Print a schedule's next intervals (start and end).",
            discussion:
                "With --json: an array of objects with `start` and `end` (RFC 3339). The starts agree with `systemd-analyze calendar --base-time`."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name.", completion: Completions.schedules) var name: String
        @Option(help: "How many intervals.") var count: Int = 10
        @Option(help: "Intervals starting after this time (RFC 3339, or 'YYYY-MM-DD HH:MM[:SS]' local); default: now.") var after: String?

        func run() async throws {
            guard (1...10_000).contains(count) else {
                throw CommandFailure(code: ExitCodes.usage, "--count: \(count) is not between 1 and 10000")
            }
            let base = try after.map(Next.parseTime)
            let intervals = try await global.call { try await $0.nextIntervals(of: name, count: count, after: base) }
            if try global.printJSON(intervals) { return }
            let zone = (try? await global.call { try await $0.schedule(name) }).flatMap { TimeZone(identifier: $0.timeZone) } ?? .current
            guard !intervals.isEmpty else { return print("\(name) has no further intervals") }
            let now = Date()
            print(
                TextFormat.table(
                    intervals.map {
                        [ClockText.time($0.start, now: now, zone: zone), "→", ClockText.time($0.end, now: now, zone: zone)]
                    }))
            if zone.identifier != TimeZone.current.identifier { print("(times in \(zone.identifier))") }
        }

        /// RFC 3339, or a local `YYYY-MM-DD HH:MM[:SS]`.
        static func parseTime(_ text: String) throws -> Date {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let iso = ISO8601DateFormatter()
            for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
                iso.formatOptions = options
                if let date = iso.date(from: trimmed) { return date }
            }
            let local = DateFormatter()
            local.locale = Locale(identifier: "en_US_POSIX")
            for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"] {
                local.dateFormat = format
                if let date = local.date(from: trimmed) { return date }
            }
            throw CommandFailure(
                code: ExitCodes.usage, "--after: \"\(text)\" is not a time (RFC 3339 such as 2027-03-27T12:00:00Z, or 'YYYY-MM-DD HH:MM')")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Enable a schedule (it blocks at once if an interval is running; a strict one only with --now).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name.", completion: Completions.schedules) var name: String
        @Flag(help: "If the schedule is strict and its window is open now, start the strict block at once.") var now = false

        func run() async throws { try await setEnabled(global, name, true, now: now) }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable", abstract: "Disable a schedule; its block ends (refused while it is strict).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name.", completion: Completions.schedules) var name: String

        func run() async throws { try await setEnabled(global, name, false) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a schedule; its block ends (refused while it is strict).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Schedule name.", completion: Completions.schedules) var name: String

        func run() async throws {
            try await global.call { try await $0.deleteSchedule(name) }
            if try global.printJSON(["deleted": name]) { return }
            print("schedule \(name) removed")
        }
    }

    /// `mon-fri 09:00–12:30`, with the zone when the schedule has its own.
    static func when(_ schedule: ScheduleInfo) -> String {
        schedule.summary + (schedule.tz.map { " (\($0))" } ?? "")
    }

    /// `active until 12:30`, `stopped by hand`, `enabled` or `disabled`.
    static func stateWord(_ schedule: ScheduleInfo, now: Date) -> String {
        if !schedule.enabled { return "disabled" }
        if schedule.stoppedByHand { return "stopped by hand" }
        if schedule.strictDeferred {
            return schedule.session == nil
                ? "strict from next interval"
                : "active until \(TextFormat.clock(schedule.blockEnd ?? now, now: now)), strict from next interval"
        }
        if schedule.active, let end = schedule.blockEnd {
            return "active until \(TextFormat.clock(end, now: now))" + (schedule.strict ? ", strict" : "")
        }
        return schedule.problem == nil ? "enabled" : "problem"
    }

    /// One line saying where a schedule stands, with its next interval.
    static func state(_ schedule: ScheduleInfo, now: Date) -> String {
        var text = "  " + stateWord(schedule, now: now)
        if let session = schedule.session { text += " (session \(session))" }
        if schedule.enabled, let next = schedule.next {
            text += "; next \(TextFormat.clock(next.start, now: now)) → \(TextFormat.clock(next.end, now: now))"
        }
        if schedule.strictDeferred, let next = schedule.next {
            text +=
                "\n  its window is open, but a strict block starts only at the next interval, "
                + "\(TextFormat.clock(next.start, now: now)) (--now starts it at once)"
        }
        if let problem = schedule.problem { text += "; problem: \(problem)" }
        return text
    }
}

private func setEnabled(_ global: GlobalOptions, _ name: String, _ enabled: Bool, now: Bool = false) async throws {
    let schedule = try await global.call { try await $0.updateSchedule(name, UpdateScheduleRequest(enabled: enabled, now: now)) }
    if try global.printJSON(schedule) { return }
    print("schedule \(name) \(enabled ? "enabled" : "disabled")")
    print(SchedulesCommand.state(schedule, now: Date()))
}

/// Runs a local check, turning a refused value into a usage failure that names its field.
private func usage<T>(_ body: () throws(FieldError) -> T) throws -> T {
    do { return try body() } catch { throw CommandFailure(code: ExitCodes.usage, SchedulesCommand.fields.rename(error.description)) }
}
