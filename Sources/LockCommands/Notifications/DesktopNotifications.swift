import Foundation

/// Freedesktop notifications (`org.freedesktop.Notifications.Notify`), sent over the
/// `SessionBus`.
///
/// libsystemd's sd-bus is opened with dlopen by `lockctl notify` only: linking it would load it,
/// and the six libraries it needs (libgcrypt, liblzma, libzstd, liblz4, libcap, libgpg-error), into
/// every lockctl command, which must start as cheaply as a bare program (measured: about +0.6 ms of
/// CPU and +1.2 MB of memory for each process of an empty C program linked with it). sd-bus rather
/// than a hand-written D-Bus client: the authentication, marshalling and reply matching are
/// libsystemd's, which every systemd machine has.
enum DesktopNotifications {
    /// The `.desktop` file notifications name (`desktop-entry` hint), installed by `make install`
    /// as `share/applications/simplylock.desktop`: notification servers take the app's name and
    /// icon, and the user's per-app notification settings, from it.
    static let desktopEntry = "simplylock"

    /// Our categories: the specification's own (`presence` and the rest) describe chat and mail,
    /// none a block; vendor categories are `x-vendor.class`.
    enum Category: String {
        case block = "x-simplylock.block"
        case shield = "x-simplylock.shield"
        case schedule = "x-simplylock.schedule"
        case pomodoro = "x-simplylock.pomodoro"
        case allowance = "x-simplylock.allowance"
        case failure = "x-simplylock.failure"
    }

    /// A notification to show.
    struct Notification: Equatable {
        var summary: String
        var body: String
        /// 0 low, 1 normal, 2 critical (the specification's urgency levels).
        var urgency: UInt8 = 1
        /// The specification's category hint.
        var category: String?
        /// Milliseconds; -1 lets the server decide.
        var timeout: Int32 = -1
        /// Buttons, in order.
        var actions: [NotificationAction] = []
        /// The session the actions act on.
        var session: String?

        init(
            summary: String, body: String, urgency: UInt8 = 1, category: Category? = nil, timeout: Int32 = -1,
            actions: [NotificationAction] = [], session: String? = nil
        ) {
            self.summary = summary
            self.body = body
            self.urgency = urgency
            self.category = category?.rawValue
            self.timeout = timeout
            self.actions = actions
            self.session = session
        }
    }
}

/// A notification's button; the raw value is the action's key on the bus.
enum NotificationAction: String, Equatable {
    case extend
    case stop
    case open
}
