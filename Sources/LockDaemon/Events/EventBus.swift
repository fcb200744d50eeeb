import Synchronization

/// Fans events out to every subscriber: streams of `GET /v1/events` and the systemd status line. A
/// slow subscriber loses the oldest events rather than slowing the daemon down.
///
/// Internal parts of the daemon never listen here for work to do: they are called directly.
public final class EventBus: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<DaemonEvent>.Continuation] = [:]
        var nextID = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Creates a bus with no subscribers.
    public init() {}

    /// A stream of every event published from now on; it ends when the caller stops iterating
    /// or the bus is closed at shutdown.
    public func subscribe() -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DaemonEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The number of subscribers now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Sends `event` to every subscriber.
    public func publish(_ event: DaemonEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for continuation in subscribers { continuation.yield(event) }
    }

    /// Sends `last` to every subscriber and ends every subscription; later subscriptions end
    /// at once. Called when shutdown begins, so that no event stream holds the daemon up.
    public func close(with last: DaemonEvent) {
        let subscribers = state.withLock { state in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers {
            continuation.yield(last)
            continuation.finish()
        }
    }
}
