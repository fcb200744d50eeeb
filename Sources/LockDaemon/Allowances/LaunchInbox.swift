import LockEnforcement
import Synchronization

/// Where the app enforcer hands launches of counted apps (`AppEnforcer(onLaunch:)`): built with
/// the enforcers, before the allowances exist, and bound to them once they do. Handing over
/// never waits; a launch that arrives unbound is answered by the guard's rule when its time is up.
public final class LaunchInbox: Sendable {
    private let handler = Mutex<(@Sendable (LaunchRequest) -> Void)?>(nil)

    /// An inbox bound to nothing yet.
    public init() {}

    /// The enforcer's callback.
    public func hand(_ request: LaunchRequest) {
        handler.withLock { $0 }?(request)
    }

    /// Sends every launch to `owner` from now on.
    public func bind(to owner: AllowanceOwner) {
        handler.withLock { $0 = { request in Task { await owner.decideLaunch(request) } } }
    }
}
