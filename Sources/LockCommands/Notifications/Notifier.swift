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
    /// Whether a stream was ever open: blocks found at the first connection are not news.
    var everConnected = false
    /// The tray icon, told about every event.
    var tray: TrayController?

    init(
        client: LockClient, throttle: NotificationThrottle,
        show: @escaping (DesktopNotifications.Notification, UInt32) throws -> UInt32, tray: TrayController? = nil
    ) {
        self.client = client
        self.throttle = throttle
        self.show = show
        self.tray = tray
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
                switch error {
                case .unreachable, .protocolError:
                    // Not there, or going away (a stopping daemon's socket still takes
                    // connections, then closes them unanswered).
                    if !announced { Self.log("waiting for simplylockd at \(client.socketPath)") }
                    announced = true
                case .api:
                    Self.log("\(error)")
                }
            }
            tray?.disconnected()
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
                let status = try? client.fetch(Endpoints.status)
                tray?.connected(status: status)
                catchUp(with: status?.sessions ?? [], now: Date())
            }
            tray?.handle(event)
            handle(event, now: Date())
        }
    }

    /// What happened while not connected (the daemon restarted, and blocks started or ended
    /// before the stream was open again) is announced from the difference between the blocks
    /// known before and the status now; the blocks found at the very first connection are not.
    private mutating func catchUp(with sessions: [SessionInfo], now: Date) {
        let known = policy.sessions
        policy.reset(sessions)
        defer { everConnected = true }
        guard everConnected else { return }
        for session in sessions where known[session.id] == nil {
            handle(
                LooseEvent(type: Event.Kind.sessionStarted.rawValue, at: now, message: "", profile: session.profile, session: session),
                now: now)
        }
        let current = Set(sessions.map(\.id))
        for (id, ended) in known where !current.contains(id) {
            handle(LooseEvent(type: Event.Kind.sessionEnded.rawValue, at: now, message: "", profile: ended.profile), now: now)
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
