import Foundation
import LockCore
import Testing

/// The network meters' rule: a site is in use from a stretch it was seen in until the
/// keep-alive window after it, with a site newly seen counting half of its first stretch.
@Suite("Site activity from answered queries")
struct QueryActivityTests {
    func at(_ seconds: Double, boot: String = "b1") -> ClockReading {
        ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000 + seconds), boot: BootTime(seconds: seconds), bootID: boot)
    }

    @Test func aSiteSeenInEveryStretchCountsEverySecondAfterItsFirstHalfStretch() {
        var activity = QueryActivity(keepAlive: .seconds(60))
        _ = activity.observe([:], at: at(0))
        var total = Duration.zero
        for step in 1...30 { total += activity.observe(["video.example": 1], at: at(Double(step) * 10))["video.example"] ?? .zero }
        // 5 s for the first stretch (when in it the site began is unknown), then 29 × 10 s.
        #expect(total == .seconds(295))
        #expect(activity.isActive)
    }

    @Test func aSiteGoneQuietCountsItsKeepAliveWindowAndThenNothing() {
        var activity = QueryActivity(keepAlive: .seconds(60))
        _ = activity.observe([:], at: at(0))
        _ = activity.observe(["a.example": 3], at: at(10))
        var after = Duration.zero
        for step in 2...12 { after += activity.observe([:], at: at(Double(step) * 10))["a.example"] ?? .zero }
        #expect(after == .seconds(60), "counted until 60 s after the stretch it was last seen in")
        #expect(!activity.isActive, "nothing in use: the meter may sleep a minute")
        #expect(activity.observe([:], at: at(200)).isEmpty)
    }

    @Test func aSiteSeenAgainWithinItsWindowCountsTheWholeGap() {
        var activity = QueryActivity(keepAlive: .seconds(60))
        _ = activity.observe([:], at: at(0))
        _ = activity.observe(["a.example": 1], at: at(60))
        #expect(activity.observe([:], at: at(100))["a.example"] == .seconds(40))
        #expect(activity.observe(["a.example": 1], at: at(110))["a.example"] == .seconds(10), "still in use at the stretch's start: whole")
        #expect(activity.observe(["a.example": 0], at: at(200))["a.example"] == .seconds(60), "a zero count is not a sighting")
    }

    @Test func theFirstStretchAndAReebootOnlyStartTheCount() {
        var activity = QueryActivity(keepAlive: .seconds(60))
        #expect(activity.observe(["a.example": 1], at: at(5)).isEmpty)
        #expect(activity.observe(["a.example": 1], at: at(15))["a.example"] == .seconds(10))
        #expect(activity.observe(["a.example": 1], at: at(3, boot: "b2")).isEmpty, "boot-clock readings of two boots cannot be compared")
        #expect(activity.observe([:], at: at(13, boot: "b2"))["a.example"] == .seconds(10))
        #expect(activity.observe([:], at: at(10, boot: "b2")).isEmpty, "a boot clock going back counts nothing")
    }
}
