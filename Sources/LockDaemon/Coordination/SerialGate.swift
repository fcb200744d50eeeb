/// Runs async operations one at a time, in arrival order.
///
/// An actor alone is not enough: while one change waits for the enforcers, another request
/// could enter and compute its new state from the same old one. Changes pass through this gate
/// so each starts from the result of the previous one.
final class SerialGate: @unchecked Sendable {
    // Only touched from the owning actor's isolation, which makes it safe.
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func run<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        if busy {
            await withCheckedContinuation { waiters.append($0) }
        }
        busy = true
        defer {
            if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
        }
        return try await body()
    }
}
