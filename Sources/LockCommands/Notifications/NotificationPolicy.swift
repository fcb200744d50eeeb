import Foundation
import LockCore
import LockProtocol

/// Which events become desktop notifications, and what they say. Knows the sessions, so that a
/// shield can say how long a block has left. Pure: time is passed in.
struct NotificationPolicy {
    /// What to show, and how to group it.
    struct Decision: Equatable {
        var notification: DesktopNotifications.Notification
        /// Notifications with the same key replace each other on screen.
        var key: String
        /// Subject to the throttle (blocked attempts, enforcement failures).
        var throttled: Bool
    }

    /// The end of each active session, by id, with its profile.
    private(set) var sessions: [String: (profile: String, endsAt: Date)] = [:]

    /// Starts over from the active sessions (after connecting).
    mutating func reset(_ active: [SessionInfo]) {
        sessions = Dictionary(active.map { ($0.id, ($0.profile, $0.endsAt)) }, uniquingKeysWith: { a, _ in a })
    }

    /// The latest end among the blocks of `profile`.
    func end(of profile: String) -> Date? { sessions.values.filter { $0.profile == profile }.map(\.endsAt).max() }

    mutating func decide(_ event: LooseEvent, now: Date) -> Decision? {
        let profile = event.profile ?? event.session?.profile ?? event.detail("profile")
        switch event.type {
        case Event.Kind.sessionStarted.rawValue, Event.Kind.sessionExtended.rawValue:
            guard let session = event.session else { return nil }
            sessions[session.id] = (session.profile, session.endsAt)
            let left = TextFormat.duration(seconds: session.remainingSeconds)
            let until = TextFormat.clock(session.endsAt, now: now)
            let started = event.type == Event.Kind.sessionStarted.rawValue
            var body = "Blocked until \(until), \(left) from now."
            if session.origin != "manual" { body += " Started by \(session.origin == "pomodoro" ? "the Pomodoro timer" : session.origin)." }
            if session.strict { body += " Strict: it cannot be stopped early." }
            // Stop only where the daemon would stop it: a strict block is not stopped early, and
            // a Pomodoro's block ends with the Pomodoro.
            let stoppable = !session.strict && session.origin != "pomodoro"
            return Decision(
                notification: .init(
                    summary: started ? "\(session.profile) is blocked" : "\(session.profile) block extended",
                    body: body, category: .block, actions: stoppable ? [.extend, .stop, .open] : [.extend, .open], session: session.id),
                key: "session:\(session.profile)", throttled: false)
        case Event.Kind.sessionEnded.rawValue:
            if let id = event.session?.id { sessions[id] = nil }
            guard let profile else { return nil }
            let how = event.reason == "stopped" ? "was stopped" : event.reason == "expired" ? "is over" : "ended"
            let still = end(of: profile).map { " \(profile) stays blocked by another block until \(TextFormat.clock($0, now: now))." } ?? ""
            return Decision(
                notification: .init(
                    summary: "\(profile) block \(how)", body: "The sites of \(profile) are reachable again." + still,
                    urgency: 0, category: .block),
                key: "session:\(profile)", throttled: false)
        case Event.Kind.scheduleWarning.rawValue:
            let schedule = event.detail("schedule") ?? "a schedule"
            var body = ""
            if let at = event.detail("at").flatMap(Timestamp.parse), let profile {
                body =
                    event.detail("edge") == "end"
                    ? "The block of \(profile) ends at \(TextFormat.clock(at, now: now))."
                    : "\(profile) will be blocked from \(TextFormat.clock(at, now: now))."
            }
            return Decision(
                notification: .init(summary: event.message, body: body, category: .schedule), key: "schedule:\(schedule)", throttled: false)
        case Event.Kind.pomodoroPhase.rawValue:
            let summary = event.message.lowercased().hasPrefix("pomodoro") ? event.message : "Pomodoro: \(event.message)"
            return Decision(
                notification: .init(summary: summary, body: profile.map { "Profile \($0)." } ?? "", category: .pomodoro),
                key: "pomodoro", throttled: false)
        case "site.blocked", "app.blocked":
            // A shield: what was stopped, by which block, for how much longer.
            let name = event.detail("name") ?? event.detail("domain") ?? event.detail("app") ?? event.message
            var summary = "\(name) is blocked"
            if let profile {
                summary += " by \(profile)"
                if let end = end(of: profile), end > now {
                    summary += " — \(TextFormat.duration(seconds: end.timeIntervalSince(now))) left"
                }
            }
            return Decision(
                notification: .init(
                    summary: summary, body: event.type == "app.blocked" ? "The program was not started." : "",
                    urgency: 1, category: .shield, timeout: 5_000, actions: [.open]),
                key: "shield:\(event.type):\(name)", throttled: true)
        case Event.Kind.allowanceWarning.rawValue:
            // Screen time running out: the daemon's message says how much is left and what then.
            let allowance = event.detail("allowance") ?? "an allowance"
            return Decision(
                notification: .init(
                    summary: "Screen time: \(event.message)", body: "Time in use counts towards \(allowance) until the day's reset.",
                    category: .allowance, actions: [.open]),
                key: "allowance:\(allowance)", throttled: false)
        case Event.Kind.allowanceOpenRefused.rawValue:
            // `gaming: no launches left today, back at 00:00` / `gaming: cooling down, 42m left`.
            let allowance = event.detail("allowance") ?? "an allowance"
            let app = event.detail("name") ?? "the app"
            let summary: String
            if event.detail("reason") == "cooling-down" {
                let wait = event.detail("waitSeconds").flatMap(Double.init) ?? 0
                summary = "\(allowance): cooling down, \(TextFormat.duration(seconds: wait)) left"
            } else {
                let back = event.detail("until").flatMap(Timestamp.parse).map { ", back at \(TextFormat.clock($0, now: now))" } ?? ""
                summary = "\(allowance): no launches left today\(back)"
            }
            return Decision(
                notification: .init(
                    summary: summary, body: "\(app) was not started.", urgency: 1, category: .allowance, timeout: 5_000,
                    actions: [.open]),
                key: "opens:\(allowance)", throttled: true)
        case Event.Kind.enforcementFailed.rawValue:
            return Decision(
                notification: .init(summary: "Blocking failed", body: event.message, urgency: 2, category: .failure, actions: [.open]),
                key: "failure:\(event.detail("enforcer") ?? "")", throttled: true)
        default:
            return nil
        }
    }
}
