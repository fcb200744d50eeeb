import Dispatch
import Foundation
import LockClient
import LockProtocol
import Synchronization

/// `lockctl status --watch`: the status drawn again on every event from the daemon, and once a
/// second while a block is shown, so its time left counts down. The daemon is asked only when
/// something happens (the stream sends one event as it opens); between events the time left is
/// counted from the last answer on the boot clock (`ContinuousClock`: it ignores changes of the
/// wall clock and keeps running in suspend, as the daemon's does).
struct StatusWatch: Sendable {
    let client: LockClient
    /// Draws one view; called on the calling thread only.
    let draw: @Sendable (StatusResponse) -> Void

    private struct Shared: Sendable {
        var status: StatusResponse?
        var fetchedAt = ContinuousClock.now
        var fresh = false
        var ended = false
        var error: ClientError?
    }

    /// The state the event thread hands to the drawing one.
    private final class Handover: Sendable {
        let state = Mutex(Shared())
    }

    /// Runs until the daemon ends the stream (returns) or cannot be reached (throws).
    func run() throws(ClientError) {
        let shared = Handover()
        let wake = DispatchSemaphore(value: 0)
        let client = self.client
        Thread.detachNewThread {
            var failure: ClientError?
            do {
                try client.followEventLines { _ in
                    let status = try client.fetch(Endpoints.status)
                    shared.state.withLock { (state: inout Shared) in
                        state.status = status
                        state.fetchedAt = .now
                        state.fresh = true
                    }
                    wake.signal()
                }
            } catch let error as ClientError {
                failure = error
            } catch {
                failure = .protocolError("\(error)")
            }
            shared.state.withLock { (state: inout Shared) in
                state.ended = true
                state.error = failure
            }
            wake.signal()
        }
        var shownTicks = -1
        while true {
            let (status, fetchedAt) = shared.state.withLock { ($0.status, $0.fetchedAt) }
            if status?.sessions.isEmpty == false {
                // Wake at the next whole second after the answer, when the time left changes.
                let elapsed = fetchedAt.duration(to: .now)
                let next = Duration.seconds(Self.ticks(elapsed) + 1) - elapsed
                let nanoseconds = max(1, Int(next.components.seconds) * 1_000_000_000 + Int(next.components.attoseconds / 1_000_000_000))
                _ = wake.wait(timeout: .now() + .nanoseconds(nanoseconds))
            } else {
                wake.wait()
            }
            let state = shared.state.withLock { (state: inout Shared) -> Shared in
                let copy = state
                state.fresh = false
                return copy
            }
            if state.ended {
                if let error = state.error { throw error }
                return
            }
            guard let status = state.status else { continue }
            let ticks = Self.ticks(state.fetchedAt.duration(to: .now))
            if state.fresh || (!status.sessions.isEmpty && ticks != shownTicks) {
                shownTicks = ticks
                draw(Self.counted(status, seconds: ticks))
            }
        }
    }

    /// Whole seconds in `elapsed`.
    static func ticks(_ elapsed: Duration) -> Int { max(0, Int(elapsed.components.seconds)) }

    /// `status` as it stands `seconds` after it was answered: each block's time left less
    /// those seconds (never below zero: the daemon's event ends it), the daemon's time moved on.
    static func counted(_ status: StatusResponse, seconds: Int) -> StatusResponse {
        guard seconds > 0 else { return status }
        var result = status
        result.now = status.now.addingTimeInterval(Double(seconds))
        for index in result.sessions.indices {
            result.sessions[index].remainingSeconds = max(0, result.sessions[index].remainingSeconds - seconds)
        }
        return result
    }
}
