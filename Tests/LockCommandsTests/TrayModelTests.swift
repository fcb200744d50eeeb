import Foundation
import LockProtocol
import Testing

@testable import LockCommands

@Suite("lockctl notify: what the tray icon shows and offers")
struct TrayModelTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func session(_ profile: String, left: Int, strict: Bool = false, origin: String = "manual", notInForce: String? = nil) -> SessionInfo {
        SessionInfo(
            id: "id-\(profile)", profile: profile, origin: origin, strict: strict, target: ["local"], startedAt: now,
            endsAt: now.addingTimeInterval(Double(left)), remainingSeconds: left, blockedNames: 3, apps: [], missingApps: [],
            notInForce: notInForce)
    }

    func status(_ sessions: [SessionInfo]) -> StatusResponse {
        StatusResponse(version: "0.1.0", now: now, sessions: sessions, blockedNames: 3, enforcers: [])
    }

    func labels(_ model: TrayModel, under parent: Int32 = 0) -> [String] {
        model.items.filter { $0.parent == parent && !$0.separator }.map(\.label)
    }

    func id(_ model: TrayModel, _ label: String) throws -> Int32 { try #require(model.items.first { $0.label == label }).id }

    @Test func withoutTheDaemonItClaimsNeitherBlockedNorFree() {
        let model = TrayModel.make(TrayModel.Input(status: nil, profiles: ["news"], length: 2700), now: now)
        #expect(model.status == .needsAttention)
        #expect(model.title == "SimplyLock: simplylockd is not reachable")
        #expect(!model.title.contains("nothing") && !model.tooltipBody.contains("nothing"))
        // Nothing that needs the daemon is offered.
        #expect(model.items.compactMap(\.action) == [.openApp])
    }

    @Test func nothingBlockedIsPassiveAndOffersStarts() throws {
        let model = TrayModel.make(TrayModel.Input(status: status([]), profiles: ["news", "social"], length: 2700), now: now)
        #expect(model.status == .passive && model.icon == "changes-allow")
        #expect(model.tooltipTitle == "Nothing is blocked")
        #expect(labels(model) == ["Start a block (45m)", "Start a Pomodoro", "Open SimplyLock"])
        #expect(labels(model, under: try id(model, "Start a block (45m)")) == ["news", "social"])
        let starts = model.items.filter { $0.parent == (try? id(model, "Start a block (45m)")) }.compactMap(\.action)
        #expect(starts == [.start(profile: "news"), .start(profile: "social")])
        let pomodoros = model.items.filter { $0.parent == (try? id(model, "Start a Pomodoro")) }.compactMap(\.action)
        #expect(pomodoros == [.startPomodoro(profile: "news"), .startPomodoro(profile: "social")])
    }

    @Test func blocksShowTheNearestEndAndStrictOnesAreNotOfferedToStop() throws {
        let blocks = [session("social", left: 3600, strict: true), session("news", left: 600)]
        let model = TrayModel.make(TrayModel.Input(status: status(blocks), profiles: ["news"], length: 2700), now: now)
        #expect(model.status == .active && model.icon == "changes-prevent")
        let first = TextFormat.clock(now.addingTimeInterval(600), now: now)
        #expect(model.title == "SimplyLock: 2 blocks, the first ends at \(first) (news)")
        #expect(model.tooltipBody.split(separator: "\n").count == 2)
        let stops = model.items.compactMap(\.action).filter { if case .stop = $0 { true } else { false } }
        #expect(stops == [.stop(session: "id-news", profile: "news")])
        let strictLine = try #require(model.items.first { $0.label.hasPrefix("social") })
        #expect(!strictLine.enabled && strictLine.action == nil && strictLine.label.hasSuffix("(strict)"))
    }

    @Test func aBlockNotInForceNeedsAttention() {
        let model = TrayModel.make(
            TrayModel.Input(status: status([session("kids", left: 600, notInForce: "unbound is not running")]), length: 2700), now: now)
        #expect(model.status == .needsAttention)
        #expect(model.tooltipBody.contains("not in force (unbound is not running)"))
    }

    @Test func aPomodoroIsStoppedThroughThePomodoroAndAStrictFocusNotAtAll() throws {
        let block = session("news", left: 1500, origin: "pomodoro")
        let settings = PomodoroSettings(
            focusSeconds: 1500, shortBreakSeconds: 300, longBreakSeconds: 900, longEvery: 4, manual: false, strict: false)
        var pomodoro = PomodoroInfo(state: "running", profile: "news", phase: "focus", blocking: true, settings: settings, summary: "")
        var model = TrayModel.make(TrayModel.Input(status: status([block]), pomodoro: pomodoro, profiles: ["news"], length: 2700), now: now)
        #expect(!model.items.contains { if case .stop = $0.action { true } else { false } })
        #expect(model.items.contains { $0.action == .stopPomodoro && $0.label == "Stop Pomodoro news" })
        pomodoro.settings?.strict = true
        model = TrayModel.make(TrayModel.Input(status: status([block]), pomodoro: pomodoro, profiles: ["news"], length: 2700), now: now)
        #expect(!model.items.contains { $0.action == .stopPomodoro })
    }
}
