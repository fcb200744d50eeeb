/// One result of a check for `lockctl doctor`: what was checked, how it came out, and what to
/// do about it.
public struct Finding: Sendable, Equatable {
    /// How serious it is.
    public enum Severity: String, Sendable, Equatable { case ok, warning, problem }

    /// What was checked (`hosts file`, `clock`).
    public var subject: String
    /// How it came out.
    public var severity: Severity
    /// What was found.
    public var message: String
    /// What to do about it, when something is to be done.
    public var fix: String?

    /// Creates a finding.
    public init(_ subject: String, _ severity: Severity, _ message: String, fix: String? = nil) {
        self.subject = subject
        self.severity = severity
        self.message = message
        self.fix = fix
    }
}
