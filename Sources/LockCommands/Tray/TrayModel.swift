import Foundation
import LockCore
import LockProtocol

/// What the tray icon shows and offers, made from what the daemon said last. Pure: time is
/// passed in. It never says more than the daemon said: while the daemon cannot be reached it
/// says that, and neither that something is blocked nor that nothing is.
struct TrayModel: Equatable {
    /// The StatusNotifierItem status: Passive is nothing to show (panels may hide the icon).
    enum Status: String { case active = "Active", passive = "Passive", needsAttention = "NeedsAttention" }

    /// What a menu item does.
    enum Action: Equatable {
        case start(profile: String)
        case startPomodoro(profile: String)
        case stopPomodoro
        case stop(session: String, profile: String)
        case openApp
    }

    struct Item: Equatable {
        var id: Int32
        var parent: Int32 = 0
        var label: String
        var enabled = true
        var separator = false
        var action: Action?
    }

    /// What the daemon said.
    struct Input {
        /// nil while the daemon cannot be reached.
        var status: StatusResponse?
        var pomodoro: PomodoroInfo?
        var profiles: [String] = []
        /// The length of a block the menu starts, in seconds.
        var length: Int
    }

    var status: Status
    var icon: String
    var title: String
    var tooltipTitle: String
    var tooltipBody: String
    var items: [Item]

    func action(of id: Int32) -> Action? { items.first { $0.id == id }?.action }

    static func make(_ input: Input, now: Date) -> TrayModel {
        var menu = Menu()
        guard let status = input.status else {
            menu.add("simplylockd is not running", enabled: false)
            menu.separator()
            menu.add("Open SimplyLock", action: .openApp)
            return TrayModel(
                status: .needsAttention, icon: "dialog-warning", title: "SimplyLock: simplylockd is not reachable",
                tooltipTitle: "simplylockd is not reachable",
                tooltipBody: "What is blocked cannot be read or changed until it is back.", items: menu.items)
        }
        let sessions = status.sessions.sorted { ($0.endsAt, $0.profile) < ($1.endsAt, $1.profile) }
        let lines = sessions.map { session -> String in
            var line = "\(session.profile) until \(TextFormat.clock(session.endsAt, now: now))"
            if session.strict { line += ", strict" }
            if session.origin == "pomodoro" { line += ", Pomodoro" }
            if let reason = session.notInForce { line += ": saved, not in force (\(reason))" }
            return line
        }
        for session in sessions {
            if session.strict {
                menu.add("\(session.profile) until \(TextFormat.clock(session.endsAt, now: now)) (strict)", enabled: false)
            } else if session.origin != "pomodoro" {
                menu.add(
                    "Stop \(session.profile) (until \(TextFormat.clock(session.endsAt, now: now)))",
                    action: .stop(session: session.id, profile: session.profile))
            }
        }
        if !sessions.isEmpty { menu.separator() }
        let length = TextFormat.duration(seconds: input.length)
        let starts = menu.add("Start a block (\(length))", enabled: !input.profiles.isEmpty)
        for profile in input.profiles { menu.add(profile, parent: starts, action: .start(profile: profile)) }
        if let pomodoro = input.pomodoro, pomodoro.isActive {
            let strictFocus = pomodoro.settings?.strict == true && pomodoro.phase == "focus"
            let what = "Pomodoro \(pomodoro.profile ?? "")"
            if strictFocus {
                menu.add("\(what): strict focus phase", enabled: false)
            } else {
                menu.add("Stop \(what)", action: .stopPomodoro)
            }
        } else {
            let pomodoros = menu.add("Start a Pomodoro", enabled: !input.profiles.isEmpty)
            for profile in input.profiles { menu.add(profile, parent: pomodoros, action: .startPomodoro(profile: profile)) }
        }
        menu.separator()
        menu.add("Open SimplyLock", action: .openApp)

        guard let nearest = sessions.first else {
            return TrayModel(
                status: .passive, icon: "changes-allow", title: "SimplyLock: nothing blocked", tooltipTitle: "Nothing is blocked",
                tooltipBody: "", items: menu.items)
        }
        let until = TextFormat.clock(nearest.endsAt, now: now)
        let title =
            sessions.count == 1
            ? "\(nearest.profile) blocked until \(until)"
            : "\(sessions.count) blocks, the first ends at \(until) (\(nearest.profile))"
        let notInForce = sessions.contains { $0.notInForce != nil }
        return TrayModel(
            status: notInForce ? .needsAttention : .active, icon: notInForce ? "dialog-warning" : "changes-prevent",
            title: "SimplyLock: " + title, tooltipTitle: title,
            tooltipBody: lines.joined(separator: "\n"), items: menu.items)
    }

    /// Numbers items in menu order.
    private struct Menu {
        var items: [Item] = []

        @discardableResult
        mutating func add(_ label: String, parent: Int32 = 0, enabled: Bool = true, action: Action? = nil) -> Int32 {
            let id = Int32(items.count + 1)
            items.append(Item(id: id, parent: parent, label: label, enabled: enabled, action: action))
            return id
        }

        mutating func separator() {
            items.append(Item(id: Int32(items.count + 1), label: "", separator: true))
        }
    }
}
