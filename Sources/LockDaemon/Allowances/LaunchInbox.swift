import LockEnforcement
import ServiceLifecycle
import Synchronization

/// Where the app enforcer hands launches of counted apps (`AppEnforcer(onLaunch:)`): built with
/// the enforcers, before the allowances exist, and bound to them once they do. Handing over
/// never waits (the kernel's answer thread calls it); the inbox is a Service that decides each
/// launch in a task of its own group, so shutdown ends them with it. A launch that arrives
/// unbound, or beyond what the guard lets wait, is answered by the guard's rule when its time is up.
public final class LaunchInbox: Sendable, ServiceLifecycle.Service {
    private let owner = Mutex<AllowanceOwner?>(nil)
    private let arrivals: AsyncStream<LaunchRequest>
    private let continuation: AsyncStream<LaunchRequest>.Continuation

    /// An inbox bound to nothing yet.
    public init() {
        // The guard lets at most 64 launches wait; more here would only be answered late.
        (arrivals, continuation) = AsyncStream.makeStream(of: LaunchRequest.self, bufferingPolicy: .bufferingOldest(64))
    }

    /// The enforcer's callback.
    public func hand(_ request: LaunchRequest) {
        guard owner.withLock({ $0 }) != nil else { return }
        continuation.yield(request)
    }

    /// Sends every launch to `owner` from now on.
    public func bind(to owner: AllowanceOwner) {
        self.owner.withLock { $0 = owner }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for await request in self.arrivals {
                    guard let owner = self.owner.withLock({ $0 }) else { continue }
                    group.addTask { await owner.decideLaunch(request) }
                }
            }
        }
    }
}
