import Foundation

/// The buttons of the notifications this notifier showed, by notification id: `ActionInvoked`
/// reaches every client on the bus, and names only the notification and the button.
final class NotificationActions: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [UInt32: String] = [:]

    /// A notification was shown (or replaced one with the same id).
    func shown(_ id: UInt32, _ notification: DesktopNotifications.Notification) {
        lock.withLock { sessions[id] = notification.actions.isEmpty ? nil : (notification.session ?? "") }
    }

    /// A button of a notification was pressed; other programs' notifications are not ours.
    func invoked(_ id: UInt32, _ key: String, by actions: DaemonActions) {
        guard let session = lock.withLock({ sessions[id] }) else { return }
        switch NotificationAction(rawValue: key) {
        case .extend where !session.isEmpty: actions.extend(session: session)
        case .stop where !session.isEmpty: actions.perform(.stop(session: session, profile: "the block"))
        case .open: actions.perform(.openApp)
        // "default" is a click on the notification itself.
        case nil where key == "default": actions.perform(.openApp)
        default: return
        }
    }
}
