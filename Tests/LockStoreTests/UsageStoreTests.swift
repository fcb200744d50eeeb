import Foundation
import LockCore
import LockStore
import TestSupport
import Testing

/// Usage minutes and allowance ledgers in the state database.
@Suite("Usage store")
struct UsageStoreTests {
    let game = UsageItem(.app, "supertux", category: "game")
    let editor = UsageItem(.app, "gedit", category: "office")
    let youtube = UsageItem(.site, "youtube.com")

    /// Minutes since 1970 of an ISO 8601 instant.
    func minute(_ text: String) -> Int64 { UsageMinute.index(of: ISO8601DateFormatter().date(from: text)!) }

    func window(_ from: String, _ to: String) -> DateInterval {
        DateInterval(start: ISO8601DateFormatter().date(from: from)!, end: ISO8601DateFormatter().date(from: to)!)
    }

    @Test func retentionDropsOldMinutesButKeepsTheirDaysInTheQuarterSums() throws {
        let store = try StateStore()
        let old = minute("2026-09-01T10:00:00Z")
        let recent = minute("2026-11-27T10:00:00Z")
        try store.recordUsage(
            (Int64(0)..<30).map { UsageMinute(minute: old + $0, item: game, meter: .appsActive, seconds: 60) }
                + (Int64(0)..<10).map { UsageMinute(minute: recent + $0, item: youtube, meter: .dns, seconds: 40) })
        let removed = try store.pruneUsage(
            minutesBefore: ISO8601DateFormatter().date(from: "2026-10-23T00:00:00Z")!,
            quartersBefore: ISO8601DateFormatter().date(from: "2025-11-27T00:00:00Z")!)
        #expect(removed.minutes == 30 && removed.quarters == 0)
        let day = window("2026-09-01T00:00:00Z", "2026-09-02T00:00:00Z")
        #expect(try store.usageTotals(in: day, by: .app).map(\.seconds) == [1800], "the day's time stays in the sums")
        #expect(try store.explainedMinutes(in: day).isEmpty, "the single minutes are gone")
        #expect(try store.explainedMinutes(in: window("2026-11-27T00:00:00Z", "2026-11-28T00:00:00Z")).count == 10)
        // Sums before the long cutoff go too; a quarter is kept while any of it is after the cutoff.
        let sums = try store.pruneUsage(
            minutesBefore: .distantPast, quartersBefore: ISO8601DateFormatter().date(from: "2026-09-01T10:20:00Z")!)
        #expect(sums.minutes == 0 && sums.quarters == 1)
        #expect(try store.usageTotals(in: day, by: .app).map(\.seconds) == [900], "10:15–10:30 is kept")
    }

    @Test func totalsByAppCategoryAndSiteWithWindowEdgesOffQuarterHours() throws {
        let store = try StateStore()
        let start = minute("2026-11-27T10:00:00Z")
        var minutes: [UsageMinute] = []
        for offset in Int64(0)..<60 {
            minutes.append(UsageMinute(minute: start + offset, item: offset < 40 ? game : editor, meter: .appsActive, seconds: 60))
        }
        minutes.append(UsageMinute(minute: start + 5, item: youtube, meter: .dns, seconds: 30))
        try store.recordUsage(minutes)
        let hour = window("2026-11-27T10:00:00Z", "2026-11-27T11:00:00Z")
        #expect(try store.usageTotals(in: hour, by: .app).map(\.name) == ["supertux", "gedit"])
        #expect(try store.usageTotals(in: hour, by: .app).map(\.seconds) == [2400, 1200])
        #expect(try store.usageTotals(in: hour, by: .category).map(\.name) == ["game", "office"])
        #expect(try store.usageTotals(in: hour, by: .site).map(\.seconds) == [30])
        #expect(try store.usageTotals(in: hour, by: .group).isEmpty)
        // 10:07–10:52: two whole quarters from the sums, 8 + 7 minutes at the edges.
        let odd = window("2026-11-27T10:07:00Z", "2026-11-27T10:52:00Z")
        #expect(try store.usageTotals(in: odd, by: .app).reduce(0) { $0 + $1.seconds } == 45 * 60)
        #expect(try store.usageTotals(in: odd, by: .app).first { $0.name == "supertux" }?.seconds == 33 * 60)
        // Inside one quarter hour.
        let inside = window("2026-11-27T10:01:00Z", "2026-11-27T10:03:00Z")
        #expect(try store.usageTotals(in: inside, by: .app).map(\.seconds) == [120])
    }

    @Test func aMinuteSavedTwiceIsCountedOnce() throws {
        let store = try StateStore()
        let first = UsageMinute(minute: minute("2026-11-27T10:00:00Z"), item: game, meter: .appsRunning, seconds: 20)
        try store.recordUsage([first])
        var replay = first
        replay.seconds = 50
        replay.meter = .appsActive
        try store.recordUsage([replay])
        let hour = window("2026-11-27T10:00:00Z", "2026-11-27T11:00:00Z")
        #expect(try store.usageTotals(in: hour, by: .app).map(\.seconds) == [50])
        #expect(try store.explainedMinutes(in: hour) == [replay])
    }

    @Test func ledgersRoundTripAndAreRemoved() throws {
        let store = try StateStore()
        let now = ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000), boot: BootTime(nanoseconds: 5), bootID: "b")
        var ledger = AllowanceLedger(now: now, in: TimeZone(identifier: "Europe/Berlin")!)
        ledger.usedToday = .seconds(1200)
        try store.saveAllowanceLedgers(["video-time": ledger])
        #expect(try store.allowanceLedgers() == ["video-time": ledger])
        try store.saveAllowanceLedgers(["video-time": nil])
        #expect(try store.allowanceLedgers().isEmpty)
    }
}
