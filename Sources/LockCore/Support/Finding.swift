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

    /// The one fix for a configuration, profile or schedule file that was refused (its last good
    /// version, or the key's default, stays in use): `lockctl doctor` and `lockctl reload` both
    /// give it, and both count the file as a problem (exit 1). `lockctl` is the command with the
    /// options that reach the daemon (`lockctl --root DIR`).
    public static func fixFile(lockctl: String) -> String {
        "fix the file (`simplylockd --check-config` lists every problem), then `\(lockctl) reload`"
    }

    /// Creates a finding.
    public init(_ subject: String, _ severity: Severity, _ message: String, fix: String? = nil) {
        self.subject = subject
        self.severity = severity
        self.message = message
        self.fix = fix
    }
}
