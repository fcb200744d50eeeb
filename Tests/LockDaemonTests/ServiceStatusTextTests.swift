import LockDaemon
import Testing

@Suite("STATUS= text")
struct ServiceStatusTextTests {
    @Test("Idle, one block, several blocks soonest first, overflow")
    func statusLines() {
        #expect(ServiceStatusText.format([]) == "idle")
        #expect(ServiceStatusText.format([(profile: "deep-work", remaining: .seconds(31 * 60))]) == "1 block active: deep-work 31m left")
        #expect(ServiceStatusText.format([
            (profile: "social", remaining: .seconds(2 * 3600 + 5 * 60)),
            (profile: "deep-work", remaining: .seconds(31 * 60)),
        ]) == "2 blocks active: deep-work 31m left, social 2h 5m left")
        #expect(ServiceStatusText.format([
            (profile: "a", remaining: .seconds(60)), (profile: "b", remaining: .seconds(120)),
            (profile: "c", remaining: .seconds(180)), (profile: "d", remaining: .seconds(240)),
            (profile: "e", remaining: .seconds(300)),
        ]) == "5 blocks active: a 1m left, b 2m left, c 3m left, and 2 more")
    }

    @Test("Remaining time is rounded up to whole minutes", arguments: [
        (Duration.seconds(0), "0s"), (.milliseconds(400), "1s"), (.seconds(59), "59s"), (.seconds(60), "1m"),
        (.seconds(61), "2m"), (.seconds(3600), "1h"), (.seconds(3601), "1h 1m"), (.seconds(-5), "0s"),
    ])
    func remaining(duration: Duration, text: String) {
        #expect(ServiceStatusText.remainingText(duration) == text)
    }
}
