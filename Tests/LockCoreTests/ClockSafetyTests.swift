import Foundation
import LockCore
import Testing

/// Time arithmetic cannot wrap, and no clock reading can give a block more time than it had.
@Suite struct ClockSafetyTests {
    @Test func bootTimeArithmeticSaturatesInsteadOfWrapping() {
        let nearEnd = BootTime(nanoseconds: .max - 5)
        #expect(nearEnd + .seconds(10) == BootTime(nanoseconds: .max))
        #expect(BootTime(nanoseconds: .min + 5) - .seconds(10) == BootTime(nanoseconds: .min))
        #expect(BootTime(nanoseconds: .max) - BootTime(nanoseconds: .min) == .nanoseconds(Int64.max))
        #expect(BootTime(seconds: 1e300).nanoseconds == .max)
        #expect(BootTime(seconds: -.infinity).nanoseconds == .min)
        #expect(BootTime(seconds: .nan).nanoseconds == 0)
    }

    @Test func numbersFromOutsideBecomeDurationsOnlyWhenTheyFit() {
        #expect(Duration.checkedSeconds(90) == .seconds(90))
        #expect(Duration.checkedSeconds(0.5) == .milliseconds(500))
        for hostile in [1e10, 1e19, 1e20, 1e300, -1e300, .infinity, -.infinity, .nan] {
            #expect(Duration.checkedSeconds(hostile) == nil || hostile == 1e10, "\(hostile)")
        }
        #expect(DurationParser.format(.seconds(Int64.max)) != "")
        #expect(DurationParser.format(.seconds(Int64.min)) == "0s")
    }

    @Test func anExtensionCannotWrapTheEndAround() {
        let start = reading(boot: 100, wall: 0)
        let s = session("a", minutes: 10, at: start).extended(by: .seconds(Int64.max), at: start)
        #expect(s.remaining(at: reading(boot: 101, wall: 1)) > .seconds(600))
        #expect(!s.hasEnded(at: reading(boot: 101, wall: 1)))
    }

    @Test func aBootClockThatJumpsBackNeverAddsTime() {
        // As under libfaketime without FAKETIME_DONT_FAKE_MONOTONIC: the session started on a
        // faked boot clock far ahead, then the daemon restarts on the real one, same boot.
        var s = session("a", minutes: 45, at: reading(boot: 1_800_000_000, wall: 0))
        s = s.checkpointed(at: reading(boot: 1_800_000_600, wall: 600))
        let real = reading(boot: 50, wall: 700)
        #expect(s.hasImplausibleBootReading(at: real))
        #expect(s.remaining(at: real) == .seconds(35 * 60))
        #expect(s.resumed(at: real).remaining(at: reading(boot: 110, wall: 760)) == .seconds(35 * 60 - 60))
    }

    @Test func aRebootWithAnUnsynchronisedClockResumesWithTheCheckpointedTime() {
        var s = session("a", minutes: 60, at: reading(boot: 0, wall: 0), strict: true)
        s = s.checkpointed(at: reading(boot: 600, wall: 600))  // 50 min left
        // Rebooted with the wall clock moved a day ahead, and the kernel says it is not synchronised.
        var afterReboot = reading(boot: 5, wall: 600 + 86_400, bootID: "boot-2")
        afterReboot.wallIsSynchronised = false
        #expect(s.remaining(at: afterReboot) == .seconds(3000))
        let resumed = s.resumed(at: afterReboot)
        #expect(resumed.pendingOffTime == Session.PendingOffTime(since: s.checkpointWall, resumedAt: afterReboot.boot))
        #expect(!resumed.hasEnded(at: afterReboot))
        // Nothing to correct while the clock still cannot be trusted.
        var later = reading(boot: 65, wall: 600 + 86_400 + 60, bootID: "boot-2")
        later.wallIsSynchronised = false
        #expect(resumed.corrected(at: later) == nil)
    }

    @Test func theTimeOffIsTakenOffOnceTheClockIsSynchronised() throws {
        var s = session("a", minutes: 60, at: reading(boot: 0, wall: 0))
        s = s.checkpointed(at: reading(boot: 600, wall: 600))  // 50 min left at wall 600
        var afterReboot = reading(boot: 5, wall: 99_999, bootID: "boot-2")  // the clock is wrong
        afterReboot.wallIsSynchronised = false
        let resumed = s.resumed(at: afterReboot)
        // NTP sets the clock: really, 20 minutes passed while off, then 2 since the resume.
        let synced = reading(boot: 125, wall: 600 + 1200 + 120, bootID: "boot-2")
        let corrected = try #require(resumed.corrected(at: synced))
        #expect(corrected.pendingOffTime == nil)
        #expect(corrected.remaining(at: synced) == .seconds(3000 - 1200 - 120))
        // Off for longer than was left: it ends, and it is never given more time.
        let muchLater = reading(boot: 125, wall: 600 + 86_400, bootID: "boot-2")
        #expect(resumed.corrected(at: muchLater)?.hasEnded(at: muchLater) == true)
        let backwards = reading(boot: 125, wall: 0, bootID: "boot-2")
        #expect(resumed.corrected(at: backwards)?.remaining(at: backwards) == .seconds(3000 - 120))
    }
}
