import Foundation
import LockCore
import LockProtocol
import Testing

@testable import LockCommands

@Suite("lockctl notify: what events become notifications, and bursts")
struct NotifierPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func session(_ profile: String, left: Int, strict: Bool = false, origin: String = "manual", id: String = "s1") throws -> SessionInfo {
        let json = """
            {"id":"\(id)","profile":"\(profile)","origin":"\(origin)","strict":\(strict),"startedAt":"2027-01-15T08:00:00Z",
             "endsAt":"\(Timestamp.format(now.addingTimeInterval(Double(left))))","remainingSeconds":\(left),"blockedNames":3,"apps":[],"missingApps":[],"target":["local"]}
            """
        return try API.makeDecoder().decode(SessionInfo.self, from: Data(json.utf8))
    }

    @Test func aBurstOfAttemptsIsOneNotification() {
        var throttle = NotificationThrottle(cooldown: 60, limit: 3, window: 30)
        #expect(throttle.admit("youtube.com", at: now) == 0)
        for second in 1...20 { #expect(throttle.admit("youtube.com", at: now + Double(second)) == nil) }
        // After the cooldown the next one is shown and says how many were held back.
        #expect(throttle.admit("youtube.com", at: now + 61) == 20)
    }

    @Test func manyDifferentNamesAreCappedToo() {
        var throttle = NotificationThrottle(cooldown: 60, limit: 3, window: 30)
        let shown = (0..<10).filter { throttle.admit("site\($0).com", at: now + Double($0) / 10) != nil }
        #expect(shown == [0, 1, 2])
        #expect(throttle.admit("late.com", at: now + 31) == 7)
    }

    @Test func screenTimeRunningOutIsANotification() {
        var policy = NotificationPolicy()
        let event = LooseEvent(
            type: "allowance.warning", at: now, message: "games-daily: 5m left, then games is blocked", profile: "games",
            details: ["allowance": .text("games-daily"), "leftSeconds": .text("300")])
        let decision = policy.decide(event, now: now)
        #expect(decision?.notification.summary == "Screen time: games-daily: 5m left, then games is blocked")
        #expect(decision?.notification.category == DesktopNotifications.Category.allowance.rawValue)
        #expect(decision?.key == "allowance:games-daily" && decision?.throttled == false)
    }

    @Test func aLaunchRefusedByAnOpenLimitSaysWhichLimitAndWhen() {
        var policy = NotificationPolicy()
        let until = now.addingTimeInterval(2 * 3600)
        let none = LooseEvent(
            type: "allowance.open_refused", at: now, message: "gaming: no launches of steam left today", profile: "games",
            details: [
                "allowance": .text("gaming"), "name": .text("steam"), "reason": .text("no-opens-left"),
                "until": .text(Timestamp.format(until)),
            ])
        let refused = policy.decide(none, now: now)
        #expect(refused?.notification.summary == "gaming: no launches left today, back at \(TextFormat.clock(until, now: now))")
        #expect(refused?.notification.body == "steam was not started.")
        #expect(refused?.notification.category == DesktopNotifications.Category.allowance.rawValue)
        #expect(refused?.key == "opens:gaming" && refused?.throttled == true)
        let cooling = LooseEvent(
            type: "allowance.open_refused", at: now, message: "gaming: steam is cooling down, 42m left", profile: "games",
            details: [
                "allowance": .text("gaming"), "name": .text("steam"), "reason": .text("cooling-down"), "waitSeconds": .text("2520"),
                "until": .text(Timestamp.format(now.addingTimeInterval(2520))),
            ])
        #expect(policy.decide(cooling, now: now)?.notification.summary == "gaming: cooling down, 42m left")
    }

    @Test func shieldsSayWhichBlockAndHowLongItHasLeft() throws {
        var policy = NotificationPolicy()
        policy.reset([try session("deep-work", left: 23 * 60)])
        let event = LooseEvent(
            type: "site.blocked", at: now, message: "youtube.com blocked", profile: "deep-work",
            details: ["name": .text("youtube.com")])
        let shield = policy.decide(event, now: now)
        let decision = try #require(shield)
        #expect(decision.notification.summary == "youtube.com is blocked by deep-work — 23m left")
        #expect(decision.throttled)
        let app = LooseEvent(type: "app.blocked", at: now, message: "steam", profile: "gaming", details: ["name": .text("steam")])
        let appShield = policy.decide(app, now: now)
        #expect(appShield?.notification.summary == "steam is blocked by gaming")
    }

    @Test func blocksStartingAndEndingAreAnnounced() throws {
        var policy = NotificationPolicy()
        let started = LooseEvent(
            type: "session.started", at: now, message: "", profile: "news",
            session: try session("news", left: 2700, strict: true))
        let announced = policy.decide(started, now: now)
        let decision = try #require(announced)
        #expect(decision.notification.summary == "news is blocked")
        #expect(decision.notification.body.contains("45m from now") && decision.notification.body.contains("Strict"))
        #expect(!decision.throttled)
        // A Pomodoro block of the same profile outlives the manual one: the end says so.
        _ = policy.decide(
            LooseEvent(
                type: "session.started", at: now, message: "", profile: "news",
                session: try session("news", left: 600, origin: "pomodoro", id: "p1")), now: now)
        let ended = LooseEvent(
            type: "session.ended", at: now, message: "", profile: "news",
            session: try session("news", left: 0, id: "s1"), reason: "stopped")
        let ending = policy.decide(ended, now: now)
        let end = try #require(ending)
        #expect(end.notification.summary == "news block was stopped")
        #expect(end.notification.body.contains("stays blocked by another block"))
    }

    @Test func helloAndStoppingRaiseNothing() {
        var policy = NotificationPolicy()
        for type in ["hello", "daemon.stopping", "profiles.changed"] {
            #expect(policy.decide(LooseEvent(type: type, at: now, message: "x"), now: now) == nil)
        }
    }

    @Test func unknownEventTypesAreReadLeniently() throws {
        let line = #"{"type":"goal.reached","at":"2027-01-15T08:00:00Z","message":"5h of focus","details":{"hours":5,"goal":"week"}}"#
        let event = try #require(LooseEvent.decode(Array(line.utf8)))
        #expect(event.type == "goal.reached")
        #expect(event.detail("hours") == "5")
        #expect(EventsCommand.line(event, now: event.at).hasSuffix("goal.reached      5h of focus"))
    }
}

@Suite("lockctl notify: categories and buttons")
struct NotificationButtonTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func started(strict: Bool, origin: String = "manual") -> LooseEvent {
        let session = SessionInfo(
            id: "s1", profile: "news", origin: origin, strict: strict, target: ["local"], startedAt: now,
            endsAt: now.addingTimeInterval(600), remainingSeconds: 600, blockedNames: 3, apps: [], missingApps: [])
        return LooseEvent(type: "session.started", at: now, message: "", profile: "news", session: session)
    }

    func decide(_ policy: inout NotificationPolicy, _ event: LooseEvent) throws -> DesktopNotifications.Notification {
        let decision = policy.decide(event, now: now)
        return try #require(decision).notification
    }

    @Test func aStrictBlockOffersNoStop() throws {
        var policy = NotificationPolicy()
        let open = try decide(&policy, started(strict: false))
        #expect(open.actions == [.extend, .stop, .open] && open.session == "s1")
        let strict = try decide(&policy, started(strict: true))
        #expect(strict.actions == [.extend, .open])
        let pomodoro = try decide(&policy, started(strict: false, origin: "pomodoro"))
        #expect(!pomodoro.actions.contains(.stop))
    }

    @Test func categoriesAreOurOwn() throws {
        var policy = NotificationPolicy()
        #expect(try decide(&policy, started(strict: false)).category == "x-simplylock.block")
        let shield = LooseEvent(type: "site.blocked", at: now, message: "", profile: "news", details: ["name": .text("x.com")])
        #expect(try decide(&policy, shield).category == "x-simplylock.shield")
        #expect(DesktopNotifications.desktopEntry == "simplylock")
    }
}
