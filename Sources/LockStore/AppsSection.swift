import LockCore

/// The `[apps]` section of simplylockd.toml: where the app catalog looks besides the standard
/// places, and how the app enforcer works.
///
/// ```toml
/// [apps]
/// data_dirs = ["/opt/games/share"]      # more XDG data directories (each with applications/)
/// user_writable = ["/home", "/tmp"]     # where copies of blocked programs are looked for (strict blocks)
/// mechanism = "automatic"               # or "fanotify", "proc-connector"
/// terminate_grace = "5s"                # SIGTERM, then SIGKILL after this
/// ```
public enum AppsSection {
    static let name = "apps"
    static let keys: Set<String> = ["data_dirs", "user_writable", "mechanism", "terminate_grace"]

    /// The settings.
    public struct Settings: Sendable, Equatable {
        /// How execs are checked.
        public enum Mechanism: String, Sendable, Equatable, CaseIterable {
            /// fanotify where the kernel allows it, else the proc connector.
            case automatic
            /// fanotify or nothing.
            case fanotify
            /// The proc connector even where fanotify works.
            case procConnector = "proc-connector"
        }

        /// Data directories read before the standard ones (each may hold `applications/`).
        public var dataDirectories: [String] = []
        /// Paths on user-writable filesystems; nil keeps the enforcer's defaults.
        public var userWritable: [String]?
        /// How execs are checked.
        public var mechanism: Mechanism = .automatic
        /// Time between SIGTERM and SIGKILL for running instances.
        public var terminateGrace: Duration = .seconds(5)

        /// The defaults.
        public init() {}
    }

    /// The settings the section gives, and every problem (`file:line: apps.FIELD: reason`); a
    /// bad key keeps its default.
    public static func parse(_ document: TOMLDocument) -> (settings: Settings, problems: [FileProblem]) {
        var settings = Settings()
        guard document.table[name] != nil else { return (settings, []) }
        guard document.table(name) != nil else { return (settings, [document.problem(name, "must be a table ([apps])")]) }
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
        func absolutePaths(_ key: String) throws(FileProblem) -> [String] {
            let paths = try document.strings(key, section: name)
            if let relative = paths.first(where: { !$0.hasPrefix("/") }) {
                throw document.problem(key, value: relative, section: name, "\"\(relative)\" is not an absolute path")
            }
            return paths
        }
        check { () throws(FileProblem) in settings.dataDirectories = try absolutePaths("data_dirs") }
        check { () throws(FileProblem) in
            guard document.table(name)?["user_writable"] != nil else { return }
            settings.userWritable = try absolutePaths("user_writable")
        }
        check { () throws(FileProblem) in
            guard let text = try document.string("mechanism", section: name) else { return }
            guard let mechanism = Settings.Mechanism(rawValue: text) else {
                throw document.problem(
                    "mechanism", value: text, section: name,
                    "\"\(text)\" is not a mechanism (automatic, fanotify or proc-connector)")
            }
            settings.mechanism = mechanism
        }
        check { () throws(FileProblem) in
            guard let grace = try document.duration("terminate_grace", section: name) else { return }
            guard grace >= .zero, grace <= .seconds(600) else {
                throw document.problem("terminate_grace", section: name, "must be between 0s and 10m")
            }
            settings.terminateGrace = grace
        }
        return (settings, problems)
    }
}
