import LockCore
import Testing

@Suite struct DurationParserTests {
    @Test(arguments: [
        ("45m", 2700), ("1h30m", 5400), ("90s", 90), ("2h", 7200), ("1d 12h", 129_600),
        ("1H 5M", 3900), (" 10min ", 600), ("3hours", 10_800), ("1h0m", 3600),
    ])
    func parses(text: String, seconds: Int64) throws {
        #expect(try DurationParser.parse(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "45", "0m", "m", "1x", "1h1h", "-5m", "1.5h", "99999999999d", "5m!"])
    func refuses(text: String) {
        #expect(throws: DurationParser.ParseError.self) { try DurationParser.parse(text) }
    }

    @Test func namesTheProblem() {
        do {
            _ = try DurationParser.parse("45")
            Issue.record("accepted 45")
        } catch {
            #expect(error.description.contains("no unit"))
            #expect(error.value == "45")
        }
    }

    @Test(
        arguments: [
            (2700.0, "45m"), (5400.0, "1h30m"), (5415.0, "1h30m15s"), (59.2, "1m"), (0.4, "1s"), (0.0, "0s"),
            (129_600.0, "1d12h"), (3_601.0, "1h1s"), (2_699.0, "44m59s"), (259_260.0, "3d1m"),
        ] as [(Double, String)])
    func formats(seconds: Double, text: String) throws {
        #expect(DurationParser.format(.seconds(seconds)) == text)
        // What is shown can be typed back.
        if seconds >= 1 { #expect(try DurationParser.parse(text) == .seconds(seconds.rounded(.up))) }
    }

    @Test(
        arguments: [
            (1800.0, "30m"), (108_000, "30h"), (93_784, "26h3m4s"), (0.5, "0.5s"), (0, "0s"),
            (-5, "-5s"), (34_560_000, "400d"), (86_400, "1d"),
        ] as [(Double, String)])
    func formatsExactlyAndReadsBack(seconds: Double, text: String) throws {
        #expect(DurationParser.formatExact(.seconds(seconds)) == text)
        if seconds >= 1, seconds == seconds.rounded() { #expect(try DurationParser.parse(text) == .seconds(seconds)) }
    }
}
