/// A cache of name lookups outside the daemon that would keep answering with addresses from
/// before a change to the blocked set (systemd-resolved, nscd).
protocol ResolverCache: Sendable {
    /// Its name in status and logs.
    var name: String { get }
    /// Drops every cached host answer. Synchronous and short (bounded by a timeout).
    func flush() -> ResolverCacheOutcome
}

/// What flushing one cache did.
enum ResolverCacheOutcome: Sendable, Equatable {
    /// It was flushed.
    case flushed
    /// The cache does not run here; nothing to do.
    case notRunning(String)
    /// It runs but could not be flushed.
    case failed(String)
}
