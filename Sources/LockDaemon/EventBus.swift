import LockProtocol

/// Fans events out to every subscriber of `GET /v1/events`. A slow subscriber loses the
/// oldest events rather than slowing the daemon down.
public actor EventBus {
    private var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextID = 0

    /// Creates a bus with no subscribers.
    public init() {}

    /// A stream of every event published from now on; it ends when the caller stops iterating.
    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.remove(id) } }
        return stream
    }

    /// Sends `event` to every subscriber.
    public func publish(_ event: Event) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    /// Ends every subscription (at shutdown).
    public func finishAll() {
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    private func remove(_ id: Int) { subscribers[id] = nil }
}
