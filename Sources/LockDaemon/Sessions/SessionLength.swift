import Foundation

/// How long a session asked for is to last.
public enum SessionLength: Sendable, Equatable {
    /// This long from now.
    case duration(Duration)
    /// Until this wall-clock time.
    case until(Date)
}
