import Logging

extension Logger.Level {
    /// The syslog priority (`PRIORITY=` journal field, 0 = emerg … 7 = debug) for this level.
    ///
    /// swift-log has no `alert`/`emerg`; `critical` maps to syslog `crit` (2). `trace` has no
    /// syslog equivalent and shares `debug` (7); the journal field `SIMPLYLOCK_LEVEL` keeps the
    /// distinction.
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
}
