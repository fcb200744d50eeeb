import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import Logging
import TestSupport
import Testing

@testable import LockDaemon

/// Insights, goals, blocked attempts and emergency access through the in-process API, with a
/// hand-moved clock, a fake enforcer and a real SQLite store.
@Suite("Insights and emergency access in the daemon")
struct InsightsServiceTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    static let friction = FrictionSettings(delay: .seconds(30), typing: 12, perWeek: 1)

    func daemon(friction: FrictionSettings? = InsightsServiceTests.friction, store: StateStore? = nil) async throws -> TestDaemon {
        var configuration = DaemonConfiguration()
        configuration.friction = friction
        return try await TestDaemon.start(
            scratch: scratch, store: store ?? self.store, clock: clock, enforcers: [fake],
            configuration: configuration)
    }

    private func unlock(_ daemon: TestDaemon, _ reference: String, challenge: String? = nil, answer: String? = nil)
        async throws(APIError) -> UnlockResponse
    {
        try await daemon.api.call(Endpoints.unlockSession, [reference], body: UnlockRequest(challenge: challenge, answer: answer))
    }

    private func code(_ body: () async throws -> Void) async -> APIErrorCode? {
        do { try await body() } catch { return (error as? APIError)?.code ?? .internalError }
        return nil
    }

    @Test func aStrictBlockEndsEarlyOnlyAfterTheWaitAndWithTheRightText() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 3600, strict: true))
        let asked = try await unlock(daemon, "social")
        #expect(asked.state == .challenge)
        let challenge = try #require(asked.challenge)
        #expect(challenge.characters == 12)
        #expect(challenge.waitSeconds == 30)
        #expect(asked.allowance == AllowanceInfo(used: 0, allowed: 1))
        let typed = challenge.pieces.sorted { $0.position < $1.position }.map(\.text).joined()

        clock.advance(29)
        var refused = await code { _ = try await unlock(daemon, "social", challenge: challenge.id, answer: typed) }
        #expect(refused == .refused)
        #expect(await daemon.sessions.active.count == 1)
        clock.advance(1)
        refused = await code { _ = try await unlock(daemon, "social", challenge: challenge.id, answer: "WRONGWRONGAB") }
        #expect(refused == .refused)
        refused = await code { _ = try await unlock(daemon, "social", challenge: challenge.id, answer: challenge.display) }
        #expect(refused == .refused)  // pasted, with the separators; that voids the challenge
        #expect(await daemon.sessions.active.count == 1)

        // A new challenge starts the wait again.
        let again = try #require(try await unlock(daemon, "social").challenge)
        clock.advance(30)
        let done = try await unlock(daemon, "social", challenge: again.id, answer: again.display.replacingOccurrences(of: " · ", with: " "))
        #expect(done.state == .unlocked)
        #expect(done.allowance == AllowanceInfo(used: 1, allowed: 1, nextFreeAt: clock.now().wall.addingTimeInterval(7 * 86_400)))
        #expect(await daemon.sessions.active.isEmpty)
        #expect(await fake.current == .empty)
        #expect(try store.history(limit: 1).first?.endReason == .unlocked)
    }

    @Test func theWeeklyAllowanceHoldsAcrossRestartsAndFreesAfterSevenDays() async throws {
        var daemon = try await daemon()
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 86_400 * 3, strict: true))
        let challenge = try #require(try await unlock(daemon, "social").challenge)
        clock.advance(30)
        _ = try await unlock(
            daemon, "social", challenge: challenge.id, answer: challenge.pieces.sorted { $0.position < $1.position }.map(\.text).joined())

        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 86_400 * 8, strict: true))
        #expect(await code { _ = try await unlock(daemon, "news") } == .refused)
        // A restart reads the early end back from the database.
        daemon = try await self.daemon(store: try StateStore(path: scratch.paths.stateDatabase))
        #expect(await code { _ = try await unlock(daemon, "news") } == .refused)
        clock.advance(7 * 86_400 - 60)
        #expect(await code { _ = try await unlock(daemon, "news") } == .refused)
        clock.advance(60)
        #expect(try await unlock(daemon, "news").state == .challenge)
    }

    @Test func withoutFrictionStrictMeansStrictAndLooseBlocksAreStopped() async throws {
        let daemon = try await daemon(friction: nil)
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 600, strict: true))
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600))
        #expect(await code { _ = try await unlock(daemon, "social") } == .refused)
        #expect(await code { _ = try await unlock(daemon, "news") } == .conflict)
        #expect(await code { _ = try await unlock(daemon, "nothing") } == .notFound)
        #expect(await code { _ = try await unlock(daemon, "social", challenge: "x") } == .invalidArgument)
    }

    @Test func editsThatWouldWeakenARunningStrictBlockAreRefusedAndStricterOnesApply() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.createProfile(CreateProfileRequest(name: "focus", domains: ["reddit.com", "x.com"], strict: true))
        _ = try await daemon.api.start(StartRequest(profile: "focus", seconds: 600))
        let before = scratch.read("etc/simplylock/profiles.d/focus.toml")
        for edit in [
            UpdateProfileRequest(removeDomains: ["x.com"]), UpdateProfileRequest(addAllow: ["old.reddit.com"]),
            UpdateProfileRequest(strict: false),
        ] {
            do {
                _ = try await daemon.api.updateProfile("focus", edit)
                Issue.record("\(edit) was accepted")
            } catch {
                #expect(error.code == .refused)
                #expect(error.message.contains("only stricter edits"))
            }
        }
        do { _ = try await daemon.api.updateProfile("focus", UpdateProfileRequest(removeDomains: ["x.com"])) } catch {
            #expect(error.message.contains("unblocks x.com"))
        }
        #expect(scratch.read("etc/simplylock/profiles.d/focus.toml") == before)
        _ = try await daemon.api.updateProfile("focus", UpdateProfileRequest(addDomains: ["youtube.com"], description: "now stricter"))
        #expect(await fake.current?.domains.contains("youtube.com") == true)
        // Once the block is over, anything goes.
        clock.advance(600)
        await daemon.sessions.expireDue()
        _ = try await daemon.api.updateProfile("focus", UpdateProfileRequest(removeDomains: ["x.com"], strict: false))
    }

    @Test func focusTimeGoalsAndStreaksFromTheHistory() async throws {
        let daemon = try await daemon()
        // Clock: 2027-01-15T08:00:00Z (a Friday), zone UTC.
        _ = try await daemon.api.call(Endpoints.updateGoals, body: UpdateGoalsRequest(dailySeconds: 3600, weeklySeconds: 36_000))
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 5400))
        clock.advance(1800)
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 1800))  // overlaps: counted once
        clock.advance(5400)
        await daemon.sessions.expireDue()
        let insights = try await daemon.api.call(Endpoints.insights)
        #expect(insights.from == Date(timeIntervalSince1970: 1_799_625_600))  // Monday 2027-01-11 00:00 UTC
        let today = try #require(insights.days.last)
        #expect(today.date == "2027-01-15")
        #expect(today.focusSeconds == 5400)
        #expect(today.goalMet == true)
        #expect(insights.days.count == 5)
        #expect(insights.totals.focusSeconds == 5400)
        #expect(insights.streak == .init(currentDays: 1, longestDays: 1, todayMet: true))
        #expect(insights.weeks.map(\.focusSeconds) == [5400])
        #expect(insights.weeks.first?.goalMet == false)

        // An active block counts up to now.
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 3600))
        clock.advance(600)
        let later = try await daemon.api.call(Endpoints.insights)
        #expect(later.days.last?.focusSeconds == 6000)

        var bad = await code { _ = try await daemon.api.call(Endpoints.updateGoals, body: UpdateGoalsRequest(dailySeconds: -5)) }
        #expect(bad == .invalidArgument)
        bad = await code { _ = try await daemon.api.call(Endpoints.insights, query: "tz=Mars/Olympus") }
        #expect(bad == .invalidArgument)
        bad = await code { _ = try await daemon.api.call(Endpoints.insights, query: "from=2030-01-01T00:00:00Z") }
        #expect(bad == .invalidArgument)
        bad = await code { _ = try await daemon.api.call(Endpoints.insights, query: "from=2020-01-01T00:00:00Z") }
        #expect(bad == .invalidArgument)
        let cleared = try await daemon.api.call(Endpoints.updateGoals, body: UpdateGoalsRequest(dailySeconds: 0))
        #expect(cleared == GoalsInfo(dailySeconds: nil, weeklySeconds: 36_000))
    }

    @Test func blockedLookupsAreCollapsedAttributedSavedAndPublished() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 3600))
        let events = daemon.core.events.subscribe()
        let inbox = daemon.core.attemptInbox
        for client in ["127.0.0.1", "127.0.0.1", "127.0.0.1", "::1"] {
            inbox.dnsBlocked(
                DNSBlockedQuery(name: "news.ycombinator.com", rule: "news.ycombinator.com", client: client, type: 1, overTCP: false))
        }
        inbox.appDenied(ExecDenial(pid: 42, path: "/usr/games/steam", appID: "steam", appName: "Steam", reason: .exec))
        await daemon.core.attempts.handleWaiting()
        clock.advance(11)
        inbox.dnsBlocked(
            DNSBlockedQuery(name: "news.ycombinator.com", rule: "news.ycombinator.com", client: "127.0.0.1", type: 28, overTCP: false))
        await daemon.core.attempts.handleWaiting()
        clock.advance(1)

        let insights = try await daemon.api.call(Endpoints.insights)
        #expect(insights.topSites == [.init(name: "news.ycombinator.com", attempts: 3)])
        #expect(insights.topApps == [.init(name: "steam", attempts: 1)])
        #expect(insights.totals.siteAttempts == 3)
        let recent = try store.recentAttempts(limit: 10)
        #expect(recent.count == 4)
        #expect(recent.filter { $0.kind == .site }.allSatisfy { $0.profile == "news" && $0.source == .dns })

        var received: [Event] = []
        for await event in events {
            received.append(Event(event))
            if received.count == 4 { break }
        }
        #expect(received.map(\.type) == [.siteBlocked, .siteBlocked, .appBlocked, .siteBlocked])
        #expect(received[0].profile == "news")
        #expect(received[0].details?["timeLeftSeconds"] == "3600")
        #expect(received[0].details?["name"] == "news.ycombinator.com")
    }

    @Test func oldAttemptsGoAfterTheRetention() async throws {
        let day: TimeInterval = 86_400
        let now = clock.now().wall
        try store.recordAttempts([
            BlockedAttempt(kind: .site, name: "old.example", source: .dns, at: now.addingTimeInterval(-400 * day)),
            BlockedAttempt(kind: .site, name: "new.example", source: .dns, at: now.addingTimeInterval(-2 * day)),
        ])
        let service = AttemptPruner(
            store: store, clock: { clock.now() },
            logger: Logger(label: "test"))
        #expect(service.prune(keeping: .seconds(365 * 86_400)) == 1)
        #expect(try store.recentAttempts(limit: 10).map(\.name) == ["new.example"])
        let year = DateInterval(start: now.addingTimeInterval(-500 * day), end: now)
        #expect(try store.topAttempts(.site, in: year, limit: 10).map(\.name) == ["new.example"])
    }

    /// The UTC days of a window, cut by it.
    private func days(of window: DateInterval) -> [DateInterval] {
        LocalDay.days(covering: window, in: TimeZone(identifier: "UTC")!).map {
            DateInterval(start: max($0.start, window.start), end: min($0.end, window.end))
        }
    }

    @Test func attemptsAreCountedOnTheirLocalDayAcrossADSTChange() throws {
        // Berlin, 2027-03-27 to 03-29: the 28th has 23 hours. One attempt an hour, on the hour (UTC).
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let start = Date(timeIntervalSince1970: 1_806_102_000)  // 2027-03-26T23:00:00Z, Berlin's midnight of the 27th
        try store.recordAttempts(
            (0..<71).map {
                BlockedAttempt(
                    kind: $0 % 10 == 0 ? .app : .site, name: "n.example", source: .dns,
                    at: start.addingTimeInterval(Double($0) * 3600 + 60))
            })
        let window = DateInterval(start: start, end: start.addingTimeInterval(71 * 3600))
        let localDays = LocalDay.days(covering: window, in: berlin).map { DateInterval(start: $0.start, end: min($0.end, window.end)) }
        let perDay = try store.attemptsPerDay(localDays)
        #expect(perDay.map { $0.sites + $0.apps } == [24, 23, 24])
        #expect(perDay.map(\.apps) == [3, 2, 3])
    }

    @Test func monthlyDailyAndRawCountsAgreeOverMonths() throws {
        // 2027-01-10 to 2027-04-20, one attempt every 7 hours and 13 minutes.
        let base = Date(timeIntervalSince1970: 1_799_539_200)
        var attempts: [BlockedAttempt] = []
        var at = base
        var index = 0
        while at < base.addingTimeInterval(100 * 86_400) {
            attempts.append(BlockedAttempt(kind: .site, name: "n\(index % 3).example", source: .dns, at: at))
            at = at.addingTimeInterval(7 * 3600 + 13 * 60)
            index += 1
        }
        try store.recordAttempts(attempts)
        for (startDay, endDay) in [(0.0, 100.0), (0.3, 99.7), (21.5, 82.25), (22, 50), (40.1, 40.2)] {
            let window = DateInterval(start: base.addingTimeInterval(startDay * 86_400), end: base.addingTimeInterval(endDay * 86_400))
            let expected = Dictionary(grouping: attempts.filter { window.start <= $0.at && $0.at < window.end }, by: \.name).mapValues(
                \.count)
            let top = try store.topAttempts(.site, in: window, limit: 10)
            #expect(Dictionary(uniqueKeysWithValues: top.map { ($0.name, $0.count) }) == expected, "days \(startDay)–\(endDay)")
            let perDay = try store.attemptsPerDay(days(of: window))
            #expect(perDay.reduce(0) { $0 + $1.sites } == expected.values.reduce(0, +))
        }
    }

    @Test func quarterHourSumsAndTheAttemptsThemselvesAgreeAtAnyWindowEdge() throws {
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        var attempts: [BlockedAttempt] = []
        for minute in stride(from: 0, to: 180, by: 7) {
            attempts.append(
                BlockedAttempt(
                    kind: .site, name: minute % 2 == 0 ? "a.example" : "b.example", source: .dns,
                    at: base.addingTimeInterval(Double(minute) * 60 + 13)))
        }
        try store.recordAttempts(attempts)
        for (startMinute, endMinute) in [(0, 180), (3, 177), (16, 44), (20, 21), (0, 1)] {
            let window = DateInterval(
                start: base.addingTimeInterval(Double(startMinute) * 60), end: base.addingTimeInterval(Double(endMinute) * 60))
            let expected = attempts.filter { window.start <= $0.at && $0.at < window.end }
            let perDay = try store.attemptsPerDay(days(of: window))
            #expect(perDay.reduce(0) { $0 + $1.sites } == expected.count, "window \(startMinute)–\(endMinute)")
            let top = try store.topAttempts(.site, in: window, limit: 5)
            #expect(top.reduce(0) { $0 + $1.count } == expected.count)
        }
    }
}
