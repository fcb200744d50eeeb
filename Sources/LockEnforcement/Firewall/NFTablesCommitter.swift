import Dispatch
import Synchronization

/// Runs the enforcer's nft commits one at a time, off Swift's cooperative thread pool, and
/// keeps track of the ruleset generation each one left behind.
///
/// Around each commit the watch's notification subscription is dropped (a listener makes the
/// kernel build one notification per set element) and the generation is read before and after:
/// if it moved by more than this commit accounts for, someone else committed in between, and
/// since their notifications were not received the caller restores to be safe.
final class NFTablesCommitter: Sendable {
    private struct State {
        var monitor: NFTablesMonitor?
        var generation: UInt32?
    }

    private let backend: any NFTablesBackend
    private let tracksGeneration: Bool
    private let queue = DispatchQueue(label: "simplylock.nftables.commit")
    private let state = Mutex(State())

    /// - Parameter tracksGeneration: read the kernel's generation around commits; off for
    ///   backends that do not talk to a kernel.
    init(backend: any NFTablesBackend, tracksGeneration: Bool) {
        self.backend = backend
        self.tracksGeneration = tracksGeneration
    }

    /// Sets (or clears) the monitor whose subscription is paused around commits.
    func attach(_ monitor: NFTablesMonitor?) {
        state.withLock { $0.monitor = monitor }
    }

    /// The generation right after the last commit, if known.
    var expectedGeneration: UInt32? {
        state.withLock { $0.generation }
    }

    /// Runs a command that changes nothing (`list …`) in turn with the commits; returns its output.
    func read(_ command: String) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            queue.async { [backend] in continuation.resume(with: Result { try backend.run(command) }) }
        }
    }

    /// Like `read`, with libnftables' JSON output.
    func listJSON(_ command: String) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            queue.async { [backend] in continuation.resume(with: Result { try backend.listJSON(command) }) }
        }
    }

    /// Runs `script`; returns true when another process changed the ruleset meanwhile.
    ///
    /// Commits run in the order this is called, so a later call always wins.
    func commit(_ script: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            queue.async { [self] in
                let monitor = state.withLock { $0.monitor }
                monitor?.setSubscribed(false)
                let before = tracksGeneration ? try? NFTablesMonitor.currentGeneration() : nil
                let result = Result { try backend.run(script) }
                monitor?.setSubscribed(true)
                let after = tracksGeneration ? try? NFTablesMonitor.currentGeneration() : nil
                state.withLock { $0.generation = after }
                let own: UInt32 = (try? result.get()) != nil ? 1 : 0
                let foreign = before.flatMap { before in after.map { $0 &- before > own } } ?? false
                switch result {
                case .success: continuation.resume(returning: foreign)
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        }
    }
}
