import Foundation
import LockClient
import LockProtocol

/// Keeps the tray icon in step with the daemon: the notifier hands it every event of the stream
/// (and the status it read on connecting); it reads again only what the event changed, and
/// tells the panel. Clicks arrive on the bus thread and are carried out by `DaemonActions`.
final class TrayController: @unchecked Sendable {
    private let client: LockClient
    private let publish: (TrayModel) -> Void
    private let actions: DaemonActions
    private let lock = NSLock()
    private var input: TrayModel.Input
    private var model: TrayModel

    init(client: LockClient, actions: DaemonActions, publish: @escaping (TrayModel) -> Void) {
        self.client = client
        self.actions = actions
        self.publish = publish
        input = TrayModel.Input(length: actions.length)
        model = TrayModel.make(input, now: Date())
        publish(model)
    }

    /// The stream is open: read everything once.
    func connected(status: StatusResponse?) {
        update { input in
            input.status = status ?? (try? client.fetch(Endpoints.status))
            input.pomodoro = try? client.fetch(Endpoints.pomodoro)
            input.profiles = Self.names(try? client.fetch(Endpoints.profiles))
        }
    }

    /// The daemon is gone (or not there yet).
    func disconnected() {
        update { input in
            input.status = nil
            input.pomodoro = nil
        }
    }

    /// An event of the stream: reads again what it changed.
    func handle(_ event: LooseEvent) {
        switch event.type {
        case Event.Kind.sessionStarted.rawValue, Event.Kind.sessionEnded.rawValue, Event.Kind.sessionExtended.rawValue,
            Event.Kind.pomodoroPhase.rawValue, Event.Kind.enforcementFailed.rawValue:
            update { input in
                if let status = try? client.fetch(Endpoints.status) { input.status = status }
                input.pomodoro = try? client.fetch(Endpoints.pomodoro)
            }
        case Event.Kind.profilesChanged.rawValue:
            update { input in
                if let profiles = try? client.fetch(Endpoints.profiles) { input.profiles = Self.names(profiles) }
            }
        default:
            return
        }
    }

    /// A menu item was clicked (on the bus thread); 0 is the icon itself.
    func clicked(_ id: Int32) {
        let action = id == 0 ? .openApp : lock.withLock { model.action(of: id) }
        if let action { actions.perform(action) }
    }

    private func update(_ change: (inout TrayModel.Input) -> Void) {
        var input = lock.withLock { self.input }
        change(&input)
        let model = TrayModel.make(input, now: Date())
        let changed = lock.withLock {
            self.input = input
            defer { self.model = model }
            return self.model != model
        }
        if changed { publish(model) }
    }

    private static func names(_ list: ProfileList?) -> [String] { list?.profiles.map(\.name) ?? [] }
}
