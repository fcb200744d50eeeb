import Foundation
import ServiceLifecycle

/// Ends every event stream as soon as shutdown begins, with a last `daemon.stopping` event, so
/// that no client listening to `GET /v1/events` can hold the daemon up.
struct EventStreamCloser: Service {
    let events: EventBus

    func run() async throws {
        try? await gracefulShutdown()
        events.close(with: .stopping(at: Date()))
    }
}
