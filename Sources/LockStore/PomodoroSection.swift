import LockCore

/// The `[pomodoro]` section of simplylockd.toml: defaults for `lockctl pomodoro start`.
///
/// ```toml
/// [pomodoro]
/// focus = "25m"
/// short_break = "5m"
/// long_break = "15m"
/// long_every = 4
/// cycles = 8        # leave out to repeat until stopped
/// manual = false
/// ```
public enum PomodoroSection {
    static let name = "pomodoro"
    static let keys: Set<String> = ["focus", "short_break", "long_break", "long_every", "cycles", "manual"]

    /// The defaults the section sets, starting from the built-in ones, and every problem as
    /// `file:line: pomodoro.FIELD: reason`. A bad key keeps its built-in default, and so does a
    /// value out of range; every other key keeps the value the file gives it.
    public static func parse(_ document: TOMLDocument) -> (config: PomodoroConfig, problems: [FileProblem]) {
        var config = PomodoroConfig()
        guard document.table[name] != nil else { return (config, []) }
        guard document.table(name) != nil else { return (config, [document.problem(name, "must be a table ([pomodoro])")]) }
        var problems: [FileProblem] = []
        func check(_ body: () throws(FileProblem) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        for key in (document.table(name)?.keys ?? []).sorted() where !keys.contains(key) {
            problems.append(
                document.problem(
                    key, section: name,
                    "unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))"))
        }
        check { () throws(FileProblem) in if let focus = try document.duration("focus", section: name) { config.focus = focus } }
        check { () throws(FileProblem) in
            if let shortBreak = try document.duration("short_break", section: name) { config.shortBreak = shortBreak }
        }
        check { () throws(FileProblem) in
            if let longBreak = try document.duration("long_break", section: name) { config.longBreak = longBreak }
        }
        check { () throws(FileProblem) in if let longEvery = try document.int("long_every", section: name) { config.longEvery = longEvery }
        }
        check { () throws(FileProblem) in if let cycles = try document.int("cycles", section: name) { config.cycles = cycles } }
        check { () throws(FileProblem) in if let manual = try document.bool("manual", section: name) { config.manual = manual } }
        // Each value out of range is reported and goes back to its built-in default; checked
        // again until nothing is out of range (at most once per field).
        for _ in 0..<keys.count {
            do throws(PomodoroConfigError) { try config.validate() } catch {
                problems.append(document.problem(error.field.replacingOccurrences(of: "-", with: "_"), section: name, error.reason))
                let defaults = PomodoroConfig()
                switch error {
                case .phaseTooShort(let phase, _), .phaseTooLong(let phase, _):
                    switch phase {
                    case .focus: config.focus = defaults.focus
                    case .shortBreak: config.shortBreak = defaults.shortBreak
                    case .longBreak: config.longBreak = defaults.longBreak
                    }
                case .longEveryTooSmall: config.longEvery = defaults.longEvery
                case .cyclesTooSmall: config.cycles = defaults.cycles
                }
                continue
            }
            break
        }
        return (config, problems)
    }
}
