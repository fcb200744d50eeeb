import Foundation
import LockDaemon
import Testing

@Suite("STATUS= text")
struct ServiceStatusTextTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // Friday 2027-01-15 08:00:00 UTC
    let utc = TimeZone(identifier: "UTC")!

    @Test("Idle, one block, several blocks soonest first, overflow; ends written as everywhere else")
    func statusLines() {
        #expect(ServiceStatusText.format([], now: now, zone: utc) == "idle")
        #expect(
            ServiceStatusText.format([(profile: "deep-work", remaining: .seconds(31 * 60))], now: now, zone: utc)
                == "1 block active: deep-work until 08:31")
        #expect(
            ServiceStatusText.format(
                [
                    (profile: "social", remaining: .seconds(2 * 3600 + 5 * 60)),
                    (profile: "deep-work", remaining: .milliseconds(31 * 60_000 + 400)),
                ], now: now, zone: utc) == "2 blocks active: deep-work until 08:31, social until 10:05")
        #expect(
            ServiceStatusText.format(
                [
                    (profile: "a", remaining: .seconds(60)), (profile: "b", remaining: .seconds(120)),
                    (profile: "c", remaining: .seconds(3 * 86_400)), (profile: "d", remaining: .seconds(4 * 86_400)),
                    (profile: "e", remaining: .seconds(300)),
                ], now: now, zone: utc) == "5 blocks active: a until 08:01, b until 08:02, e until 08:05, and 2 more")
        #expect(
            ServiceStatusText.format([(profile: "long", remaining: .seconds(3 * 86_400))], now: now, zone: utc)
                == "1 block active: long until Mon 08:00")
    }
}
