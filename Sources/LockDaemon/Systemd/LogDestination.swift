/// Where `simplylockd`'s log entries go.
public enum LogDestination: String, Sendable, Equatable {
    /// Structured entries through `sd_journal_sendv` (stderr is connected to the journal).
    case journal
    /// Plain leveled lines on standard error.
    case stderr
}
