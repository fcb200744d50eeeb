import LockCore

/// The `[friction]` section of a profile file or of simplylockd.toml: how a strict block can
/// still be ended early.
///
/// ```toml
/// [friction]
/// delay = "60s"            # wait this long, watching a countdown
/// typing = 40              # then type this many random characters
/// emergency_per_week = 1   # early ends allowed in any 7 days; 0: strict means strict
/// ```
public enum FrictionSection {
    static let name = "friction"
    static let keys: Set<String> = ["delay", "typing", "emergency_per_week"]

    /// The keys the section sets (nil when there is no section), and every problem, each as
    /// `file:line: friction.FIELD: reason`. A bad key is left out (the next layer's value or
    /// the default applies) and reported.
    public static func parse(_ document: TOMLDocument) -> (settings: FrictionSettings?, problems: [FileProblem]) {
        guard document.table[name] != nil else { return (nil, []) }
        guard document.table(name) != nil else { return (nil, [document.problem(name, "must be a table ([friction])")]) }
        var settings = FrictionSettings()
        var problems: [FileProblem] = []
        func check(_ body: () throws(FileProblem) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        for key in (document.table(name)?.keys ?? []).sorted() where !keys.contains(key) {
            problems.append(
                document.problem(key, section: name, "unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))"))
        }
        check { () throws(FileProblem) in
            guard let delay = try document.duration("delay", section: name) else { return }
            guard delay >= .zero, delay <= FrictionPolicy.maxDelay else {
                throw document.problem("delay", section: name, "must be between 0s and \(DurationParser.format(FrictionPolicy.maxDelay))")
            }
            settings.delay = delay
        }
        check { () throws(FileProblem) in
            guard let typing = try document.int("typing", section: name) else { return }
            guard (0...FrictionPolicy.maxTyping).contains(typing) else {
                throw document.problem("typing", section: name, "must be a whole number from 0 to \(FrictionPolicy.maxTyping)")
            }
            settings.typing = typing
        }
        check { () throws(FileProblem) in
            guard let perWeek = try document.int("emergency_per_week", section: name) else { return }
            guard (0...FrictionPolicy.maxPerWeek).contains(perWeek) else {
                throw document.problem("emergency_per_week", section: name, "must be a whole number from 0 to \(FrictionPolicy.maxPerWeek)")
            }
            settings.perWeek = perWeek
        }
        return (settings, problems)
    }

    /// The section's lines, for writing a profile file back.
    static func render(_ settings: FrictionSettings, into writer: inout TOMLWriter) {
        writer.table(name)
        if let delay = settings.delay { writer.string("delay", DurationParser.formatExact(delay)) }
        if let typing = settings.typing { writer.int("typing", typing) }
        if let perWeek = settings.perWeek { writer.int("emergency_per_week", perWeek) }
    }
}

/// The `[insights]` section of simplylockd.toml.
///
/// ```toml
/// [insights]
/// retention = "365d"   # blocked attempts older than this are deleted
/// ```
public enum InsightsSection {
    static let name = "insights"
    static let keys: Set<String> = ["retention"]

    /// The retention the section sets (nil for the default) and every problem.
    public static func parse(_ document: TOMLDocument) -> (retention: Duration?, problems: [FileProblem]) {
        guard document.table[name] != nil else { return (nil, []) }
        guard document.table(name) != nil else { return (nil, [document.problem(name, "must be a table ([insights])")]) }
        var problems: [FileProblem] = []
        for key in (document.table(name)?.keys ?? []).sorted() where !keys.contains(key) {
            problems.append(
                document.problem(key, section: name, "unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))"))
        }
        do throws(FileProblem) {
            guard let retention = try document.duration("retention", section: name) else { return (nil, problems) }
            guard retention >= .seconds(86_400), retention <= .seconds(10 * 366 * 86_400) else {
                throw document.problem("retention", section: name, "must be between 1d and 3660d")
            }
            return (retention, problems)
        } catch {
            return (nil, problems + [error])
        }
    }
}
