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

    /// The defaults the section sets, starting from the built-in ones; every problem is
    /// reported as `file:line: pomodoro.FIELD: reason`.
    public static func parse(_ document: TOMLDocument) throws(FileProblem) -> PomodoroConfig {
        var config = PomodoroConfig()
        guard document.table[name] != nil else { return config }
        guard document.table(name) != nil else { throw document.problem(name, "must be a table ([pomodoro])") }
        try document.requireOnly(keys, section: name)
        if let focus = try document.duration("focus", section: name) { config.focus = focus }
        if let shortBreak = try document.duration("short_break", section: name) { config.shortBreak = shortBreak }
        if let longBreak = try document.duration("long_break", section: name) { config.longBreak = longBreak }
        if let longEvery = try document.int("long_every", section: name) { config.longEvery = longEvery }
        if let cycles = try document.int("cycles", section: name) { config.cycles = cycles }
        if let manual = try document.bool("manual", section: name) { config.manual = manual }
        do { try config.validate() } catch {
            throw document.problem(error.field.replacingOccurrences(of: "-", with: "_"), section: name, error.reason)
        }
        return config
    }
}
