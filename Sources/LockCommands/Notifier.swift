import Foundation
import Glibc
import LockClient
import LockProtocol

/// The notifier's loop: connect, read the active blocks, turn events into notifications; when
/// the daemon goes away, wait for its socket to come back and connect again.
struct Notifier {
    let client: LockClient
    var throttle: NotificationThrottle
    let show: (DesktopNotifications.Notification, UInt32) throws -> UInt32
    var policy = NotificationPolicy()
    /// Notification ids by key, so a newer one replaces an older one on screen.
    var shown: [String: UInt32] = [:]

    init(client: LockClient, throttle: NotificationThrottle,
         show: @escaping (DesktopNotifications.Notification, UInt32) throws -> UInt32) {
        self.client = client
        self.throttle = throttle
        self.show = show
    }

    mutating func run() throws {
        var announced = false
        // One watch for the notifier's life, set up before the first attempt to connect: a
        // change that happens while connecting or connected is queued, never lost.
        var watch = try SocketWatch(socketPath: client.socketPath)
        while true {
            var connected = false
            do {
                try follow { connected = true }
            } catch let error as ClientError {
                if case .unreachable = error {
                    if !announced { Self.log("waiting for simplylockd at \(client.socketPath)") }
                    announced = true
                } else {
                    Self.log("\(error)")
                }
            }
            if connected {
                announced = false
                // The stream ended: the daemon stopped or restarts. With socket activation the
                // socket is there at once; otherwise the watch wakes when it is.
                continue
            }
            watch.wait()
            // The directory itself appeared: watch it now, rather than its parent.
            if !watch.watchesTarget { watch = try SocketWatch(socketPath: client.socketPath) }
            // A socket exists a moment before it listens: a few tries, a moment apart.
            for _ in 0..<30 {
                if (try? client.fetch(Endpoints.status)) != nil { break }
                usleep(100_000)
            }
        }
    }

    private mutating func follow(_ onConnect: () -> Void) throws {
        var first = true
        try client.followEventLines { line in
            guard let event = LooseEvent.decode(line) else { return }
            if first {
                first = false
                onConnect()
                Self.log("following simplylockd at \(client.socketPath)")
                policy.reset((try? client.fetch(Endpoints.status).sessions) ?? [])
            }
            handle(event, now: Date())
        }
    }

    mutating func handle(_ event: LooseEvent, now: Date) {
        guard let decision = policy.decide(event, now: now) else { return }
        var notification = decision.notification
        if decision.throttled {
            guard let heldBack = throttle.admit(decision.key, at: now) else { return }
            if heldBack > 0 {
                let more = "\(TextFormat.count(heldBack, "more notification")) held back"
                notification.body = notification.body.isEmpty ? "(\(more))" : notification.body + " (\(more))"
            }
        }
        do {
            shown[decision.key] = try show(notification, shown[decision.key] ?? 0)
        } catch {
            Self.log("\(error)")
        }
    }

    static func log(_ text: String) {
        FileHandle.standardError.write(Data("lockctl notify: \(text)\n".utf8))
    }
}
