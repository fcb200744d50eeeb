/// One finding of `lockctl doctor`.
public struct DoctorCheck: Sendable, Equatable, Codable {
    /// How a check came out.
    public enum State: String, Sendable, Codable, Comparable {
        case ok, warning, problem

        private var rank: Int { self == .ok ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: State, b: State) -> Bool { a.rank < b.rank }
    }

    /// What was checked (`hosts file`, `clock`, …).
    public var name: String
    /// The outcome.
    public var state: State
    /// What was found.
    public var message: String
    /// What to do about it, when something is to be done.
    public var fix: String?

    /// Creates a finding.
    public init(_ name: String, _ state: State, _ message: String, fix: String? = nil) {
        self.name = name
        self.state = state
        self.message = message
        self.fix = fix
    }
}

/// `GET /v1/doctor`: what the daemon can check about itself and the machine.
public struct DoctorReport: Sendable, Equatable, Codable {
    /// The findings, in a fixed order.
    public var checks: [DoctorCheck]
    /// Creates a report.
    public init(checks: [DoctorCheck]) { self.checks = checks }
}
