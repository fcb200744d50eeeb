import Foundation
import LockCore
import Testing

/// The site meter's two network sources combined: answered queries and the firewall's byte
/// totals per name, each stretch of each site credited once, to one meter.
@Suite("Site activity from queries and firewall byte counters")
struct SiteActivityTests {
    func at(_ seconds: Double, boot: String = "b1") -> ClockReading {
        ClockReading(wall: Date(timeIntervalSince1970: 1_800_000_000 + seconds), boot: BootTime(seconds: seconds), bootID: boot)
    }

    /// Minutes of a stream: totals growing by `perMinute` every minute, no queries at all.
    func stream(_ activity: inout SiteActivity, minutes: Int, perMinute: UInt64, from start: Int = 0, total: inout UInt64) -> Duration {
        var sum = Duration.zero
        for minute in start..<(start + minutes) {
            total += perMinute
            sum +=
                activity.observe(queries: [:], bytes: ["video.example": total], at: at(Double(minute + 1) * 60))["video.example"]?.duration
                ?? .zero
        }
        return sum
    }

    @Test func aStreamFromACachedAddressCountsEveryMinuteWithoutAQuery() {
        var activity = SiteActivity()
        var total: UInt64 = 5_000_000
        #expect(
            activity.observe(queries: [:], bytes: ["video.example": total], at: at(0)).isEmpty,
            "the first reading only sets where it starts")
        // 20 minutes of 2 MB a minute: half of the first minute (when in it the stream began is
        // unknown), then 19 whole ones, then the minute of keep-alive after it stopped.
        let streaming = stream(&activity, minutes: 20, perMinute: 2_000_000, total: &total)
        #expect(streaming == .seconds(30 + 19 * 60))
        let after = activity.observe(queries: [:], bytes: ["video.example": total], at: at(21 * 60))
        #expect(after["video.example"] == SiteActivity.Use(.seconds(60), .firewall), "the keep-alive goes to the meter that saw it last")
        #expect(activity.observe(queries: [:], bytes: ["video.example": total], at: at(22 * 60)).isEmpty)
        #expect(!activity.isActive)
    }

    @Test func trafficBelowTheThresholdIsNotUse() {
        var activity = SiteActivity(threshold: 32 * 1024)
        var total: UInt64 = 0
        _ = activity.observe(queries: [:], bytes: ["chat.example": total], at: at(0))
        for minute in 1...10 {
            total += 20 * 1024  // an idle tab's polling
            #expect(activity.observe(queries: [:], bytes: ["chat.example": total], at: at(Double(minute) * 60)).isEmpty)
        }
        #expect(!activity.isActive, "idle minutes: the sampler may sleep a whole minute")
    }

    @Test func theThresholdIsProRatedToTheStretch() {
        var activity = SiteActivity(threshold: 60_000)
        _ = activity.observe(queries: [:], bytes: ["a.example": 0], at: at(0))
        // 10 s stretches: 10 000 bytes is the threshold's share, 9 999 is not.
        #expect(activity.observe(queries: [:], bytes: ["a.example": 9_999], at: at(10)).isEmpty)
        #expect(
            activity.observe(queries: [:], bytes: ["a.example": 19_999], at: at(20))["a.example"]
                == SiteActivity.Use(.seconds(5), .firewall))
    }

    @Test func aStretchSeenByBothMetersIsCountedOnceAndCreditedToTheFirewall() {
        var activity = SiteActivity()
        _ = activity.observe(queries: [:], bytes: ["video.example": 0], at: at(0))
        let both = activity.observe(queries: ["video.example": 4], bytes: ["video.example": 1_000_000], at: at(60))
        #expect(both == ["video.example": SiteActivity.Use(.seconds(30), .firewall)])
        let queriesOnly = activity.observe(queries: ["video.example": 1], bytes: ["video.example": 1_000_000], at: at(120))
        #expect(queriesOnly == ["video.example": SiteActivity.Use(.seconds(60), .dns)], "no bytes moved: the DNS meter saw it")
    }

    @Test func aRecreatedCounterCountsFromZeroAndARebootOnlyRestarts() {
        var activity = SiteActivity()
        _ = activity.observe(queries: [:], bytes: ["a.example": 900_000], at: at(0))
        // Smaller than before: a new counter, whose 500 000 bytes all grew in this stretch.
        #expect(activity.observe(queries: [:], bytes: ["a.example": 500_000], at: at(60))["a.example"]?.meter == .firewall)
        #expect(activity.observe(queries: [:], bytes: ["a.example": 9_000_000], at: at(30, boot: "b2")).isEmpty, "another boot's clock")
        #expect(
            activity.observe(queries: [:], bytes: ["a.example": 9_000_000], at: at(90, boot: "b2")).isEmpty, "no growth since the reboot")
    }

    @Test func aNameFirstReadLaterStartsFromItsFirstReading() {
        var activity = SiteActivity()
        _ = activity.observe(queries: [:], bytes: [:], at: at(0))
        #expect(
            activity.observe(queries: [:], bytes: ["new.example": 80_000_000], at: at(60)).isEmpty, "bytes counted before metering began")
        #expect(activity.observe(queries: [:], bytes: ["new.example": 81_000_000], at: at(120))["new.example"]?.meter == .firewall)
    }
}
