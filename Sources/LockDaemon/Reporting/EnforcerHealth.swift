import LockEnforcement

/// How an enforcer is doing, judged once for both `lockctl status` and `lockctl doctor`, so the
/// two never disagree.
enum EnforcerHealth: Equatable, Sendable {
    /// In force and working.
    case ok
    /// Nothing to enforce, or not applied yet.
    case idle
    /// Failing: its last apply or restore failed, or what it holds cannot work (every name it
    /// should block by address failed to resolve).
    case problem(String)

    /// The word clients show: `ok`, `idle` or `problem`.
    var word: String {
        switch self {
        case .ok: "ok"
        case .idle: "idle"
        case .problem: "problem"
        }
    }

    /// What is wrong, for `problem`.
    var reason: String? {
        if case .problem(let reason) = self { reason } else { nil }
    }
}

extension EnforcerStatus {
    /// This enforcer's health.
    var health: EnforcerHealth {
        if let lastError { return .problem(lastError) }
        if case .count(let names)? = details["names"], names > 0, case .count(let failing)? = details["namesFailing"], failing >= names {
            return .problem("none of the \(names) names resolved, so no address is blocked (name lookups still are)")
        }
        return applied ? .ok : .idle
    }
}
