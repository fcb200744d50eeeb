import ArgumentParser
import Foundation
import LockCore
import LockProtocol

/// `lockctl pomodoro …`: focus phases that block a profile, breaks that lift it.
struct PomodoroCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pomodoro",
        abstract: "Run a Pomodoro timer whose focus phases block a profile.",
        discussion: """
            Focus phases block the profile, breaks lift it, and a long break follows every few focus phases. \
            Phases advance by themselves, or with --manual wait for `lockctl pomodoro next`. Defaults come from \
            the [pomodoro] section of simplylockd.toml. Only one Pomodoro runs at a time; other blocks run beside it.
            """,
        subcommands: [Start.self, Status.self, Pause.self, Resume.self, Skip.self, Stop.self, Next.self, History.self],
        defaultSubcommand: Status.self)

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start", abstract: "Start a Pomodoro linked to a profile.",
            discussion: """
                Example:
                  lockctl pomodoro start --profile focus --focus 50m --short-break 10m \\
                      --long-break 30m --long-every 3 --cycles 6
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: "Profile that focus phases block (see `lockctl profiles list`).", completion: Completions.profiles) var profile:
            String
        // Unconditional parsing so that `--focus -5m` reaches validation instead of being
        // taken for an option.
        @Option(parsing: .unconditional, help: "Length of a focus phase (default: simplylockd.toml, else 25m).") var focus: String?
        @Option(parsing: .unconditional, help: "Length of a short break (default: simplylockd.toml, else 5m).") var shortBreak: String?
        @Option(parsing: .unconditional, help: "Length of a long break (default: simplylockd.toml, else 15m).") var longBreak: String?
        @Option(parsing: .unconditional, help: "A long break follows every Nth focus phase (default: simplylockd.toml, else 4).")
        var longEvery: Int?
        @Option(
            parsing: .unconditional,
            help: "Number of focus phases, then the Pomodoro finishes (default: simplylockd.toml, else repeat until stopped).")
        var cycles: Int?
        @Flag(
            inversion: .prefixedNo, help: "Wait for `lockctl pomodoro next` at the end of each phase (default: simplylockd.toml, else no).")
        var manual: Bool?
        @Flag(
            inversion: .prefixedNo,
            help: """
                --strict: focus phases cannot be skipped or stopped, and pausing keeps the block; --no-strict: they can \
                (default: the profile's setting).
                """)
        var strict: Bool?
        @Option(
            name: .customLong("for"),
            help: ArgumentHelp(
                "Where focus phases block: device groups from [lan], lan, local (the default); comma-separated or repeated.",
                valueName: "target"))
        var targets: [String] = []

        func validate() throws {
            _ = try Start.seconds(focus, field: "focus")
            _ = try Start.seconds(shortBreak, field: "short-break")
            _ = try Start.seconds(longBreak, field: "long-break")
        }

        static func seconds(_ text: String?, field: String) throws -> Double? {
            guard let text else { return nil }
            if text.trimmingCharacters(in: .whitespaces).hasPrefix("-") {
                throw ValidationError("\(field): \(text) is negative; a phase must last at least 1s")
            }
            do { return try DurationParser.parse(text).seconds } catch {
                throw ValidationError("\(field): \(error.description)")
            }
        }

        func run() async throws {
            let request = PomodoroStartRequest(
                profile: profile, focusSeconds: try Start.seconds(focus, field: "focus"),
                shortBreakSeconds: try Start.seconds(shortBreak, field: "short-break"),
                longBreakSeconds: try Start.seconds(longBreak, field: "long-break"),
                longEvery: longEvery, cycles: cycles, manual: manual, strict: strict,
                target: TargetArgument.names(targets))
            let fields = FieldNames([
                "focusSeconds": "--focus", "shortBreakSeconds": "--short-break", "longBreakSeconds": "--long-break",
                "target": "--for",
            ])
            let info = try await global.call(fields: fields) { try await $0.startPomodoro(request) }
            if try !global.printJSON(info) {
                print("Pomodoro started for \(info.profile ?? profile): \(info.summary)")
                if let problem = info.problem { print("  \(problem)") }
            }
            // Started, but its block is not in force (a LAN target while the DNS server is down).
            if info.problem != nil { throw ExitCode(ExitCodes.notInForce) }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show the phase, cycle k of n, time left and what comes next.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let info = try await global.call { try await $0.pomodoro() }
            if try global.printJSON(info) { return }
            print(Status.render(info))
        }

        static func render(_ info: PomodoroInfo, now: Date = Date()) -> String {
            guard let profile = info.profile else {
                return "○ no Pomodoro running (start one with `lockctl pomodoro start --profile NAME`)"
            }
            let cycle = info.cycle.map { k in info.cycles.map { "cycle \(k) of \($0)" } ?? "cycle \(k)" } ?? ""
            let phase = info.phase.map(name) ?? ""
            let head: String
            switch info.state {
            case "running": head = "● Pomodoro \(profile): \(phase), \(cycle)"
            case "paused": head = "○ Pomodoro \(profile): \(phase) paused, \(cycle)"
            case "waiting": head = "○ Pomodoro \(profile): waiting for `lockctl pomodoro next`, \(cycle)"
            default: head = "○ Pomodoro \(profile): finished (\(info.finishReason ?? "stopped"))"
            }
            var rows: [[String]] = []
            if let remaining = info.remainingSeconds {
                let left = TextFormat.duration(seconds: remaining)
                if let endsAt = info.endsAt {
                    rows.append(["Left:", "\(left), ends \(TextFormat.clock(endsAt, now: now))"])
                } else {
                    rows.append(["Left:", "\(left), paused"])
                }
            }
            if let next = info.next {
                var text = next == "finish" ? "finish" : name(next)
                if let seconds = info.nextSeconds { text += " \(TextFormat.duration(seconds: seconds))" }
                rows.append(["Next:", text])
            }
            if info.isActive {
                rows.append(["Block:", info.blocking ? "\(profile)" + (info.session.map { " (session \($0))" } ?? "") : "lifted"])
            }
            let completed = info.completedFocusPhases ?? 0
            rows.append(["Completed:", TextFormat.count(completed, "focus phase")])
            if let settings = info.settings { rows.append(["Timing:", timing(settings)]) }
            if let startedAt = info.startedAt { rows.append(["Started:", TextFormat.clock(startedAt, now: now)]) }
            if let problem = info.problem { rows.append(["Problem:", problem]) }
            let width = rows.map { $0[0].count }.max() ?? 0
            let body = rows.map { "  " + String(repeating: " ", count: width - $0[0].count) + $0[0] + " " + $0[1] }
            return ([head] + body).joined(separator: "\n")
        }

        static func name(_ phase: String) -> String { PomodoroPhase(rawValue: phase)?.displayName ?? phase }

        static func timing(_ settings: PomodoroSettings) -> String {
            func length(_ seconds: Double) -> String { DurationParser.format(.seconds(seconds)) }
            let every = settings.longEvery == 1 ? "each" : "every \(ordinal(settings.longEvery))"
            var text =
                "focus \(length(settings.focusSeconds)), short break \(length(settings.shortBreakSeconds)), "
                + "long break \(length(settings.longBreakSeconds)) after \(every); "
                + (settings.cycles.map { TextFormat.count($0, "cycle") } ?? "repeats until stopped")
            if settings.manual { text += ", manual" }
            if settings.strict { text += ", strict" }
            return text
        }

        static func ordinal(_ n: Int) -> String {
            let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
            return "\(n)\(suffix)"
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause", abstract: "Freeze the phase's remaining time (the block is lifted unless strict).")
        @OptionGroup var global: GlobalOptions
        func run() async throws { try await PomodoroCommand.perform(.pause, global) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Continue a paused phase.")
        @OptionGroup var global: GlobalOptions
        func run() async throws { try await PomodoroCommand.perform(.resume, global) }
    }

    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip", abstract: "End the phase now and start the next (refused for strict focus phases).")
        @OptionGroup var global: GlobalOptions
        func run() async throws { try await PomodoroCommand.perform(.skip, global) }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop", abstract: "End the Pomodoro (refused during strict focus phases).")
        @OptionGroup var global: GlobalOptions
        func run() async throws { try await PomodoroCommand.perform(.stop, global) }
    }

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next", abstract: "Start the phase that is waiting (--manual, or after the computer was off or asleep).")
        @OptionGroup var global: GlobalOptions
        func run() async throws { try await PomodoroCommand.perform(.next, global) }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history", abstract: "Show completed focus phases and the focus time they add up to.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "How many entries.") var limit: Int = 20

        func run() async throws {
            let history = try await global.call { try await $0.pomodoroHistory(limit: limit) }
            if try global.printJSON(history) { return }
            guard !history.entries.isEmpty else { return print("no pomodoros completed yet") }
            var rows = [["ENDED", "PROFILE", "CYCLE", "FOCUSED"]]
            for entry in history.entries {
                let cycle = entry.cycles.map { "\(entry.cycle) of \($0)" } ?? "\(entry.cycle)"
                rows.append([
                    TextFormat.clock(entry.endedAt), entry.profile, cycle,
                    DurationParser.format(.seconds(entry.focusedSeconds)),
                ])
            }
            print(TextFormat.table(rows, header: true))
            print(
                "\(TextFormat.count(history.pomodoros, "pomodoro")), \(DurationParser.format(.seconds(history.focusedSeconds))) of focus in all"
            )
        }
    }

    static func perform(_ action: PomodoroAction, _ global: GlobalOptions) async throws {
        let info = try await global.call { try await $0.pomodoro(action) }
        if try global.printJSON(info) { return }
        print(info.summary)
    }
}
