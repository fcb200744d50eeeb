import Foundation
import LockCore
import Testing

@Suite("Schedule rules")
struct ScheduleRuleTests {
    let berlin = zone("Europe/Berlin")

    @Test func overlappingCalendarIntervals() throws {
        let rule = try ScheduleRule(on: "minutely", for: .seconds(3 * 3600))
        let now = utc("2026-11-22T12:00:00Z")
        let containing = rule.intervals(containing: now, in: berlin)
        #expect(containing.count == 180)
        #expect(containing.first?.start == now - 3 * 3600 + 60)
        #expect(containing.last == DateInterval(start: now, duration: 3 * 3600))
        #expect(rule.activeInterval(at: now, in: berlin) == DateInterval(start: now - 3 * 3600 + 60, end: now + 3 * 3600))
        #expect(rule.nextEdge(after: now, in: berlin) == now + 60)
        #expect(rule.intervals(containing: now, in: berlin, limit: 5).count == 5)
        // Every second for a day: 86 400 overlapping intervals, answered by bisection.
        let dense = try ScheduleRule(on: "*:*:*", for: .seconds(86_400))
        #expect(dense.activeInterval(at: now + 0.5, in: berlin) == DateInterval(start: now - 86_399, end: now + 86_400))
        #expect(dense.nextEdge(after: now + 0.5, in: berlin) == now + 1)
    }

    @Test func expiredOneOff() throws {
        let rule = try ScheduleRule(on: "2027-01-15 08:00", for: .seconds(3600))
        let start = utc("2027-01-15T07:00:00Z")
        #expect(rule.nextEdge(after: utc("2026-11-22T00:00:00Z"), in: berlin) == start)
        #expect(rule.nextEdge(after: start + 60, in: berlin) == start + 3600)
        #expect(rule.intervals(containing: start + 60, in: berlin) == [DateInterval(start: start, duration: 3600)])
        #expect(rule.nextEdge(after: start + 3600, in: berlin) == nil)
        #expect(rule.nextIntervals(after: start, count: 3, in: berlin).isEmpty)
        #expect(rule.activeInterval(at: start + 3600, in: berlin) == nil)
    }

    @Test func resumeWeeksLaterDoesNotReplayMissedIntervals() throws {
        let rule = try ScheduleRule(cron: "0 9 * * 1-5", for: .seconds(2 * 3600))
        let wake = utc("2026-12-16T09:30:00Z")  // Wednesday 10:30 in Berlin, weeks after suspending
        #expect(rule.activeInterval(at: wake, in: berlin) == DateInterval(start: utc("2026-12-16T08:00:00Z"), duration: 7200))
        #expect(rule.nextEdge(after: wake, in: berlin) == utc("2026-12-16T10:00:00Z"))
        #expect(rule.nextIntervals(after: wake, count: 1, in: berlin).first?.start == utc("2026-12-17T08:00:00Z"))
    }

    /// Between an instant and its `nextEdge` nothing starts or ends, and the edge itself is a
    /// start or an end; `activeInterval` is the union of `intervals(containing:)`.
    @Test(arguments: [
        "weekly mon-fri 09:00 12:30", "weekly fri-mon 22:00 07:00", "weekly all 02:30 01:45",
        "on *:0/20 45m", "on Mon..Fri 09:00 3h", "on *-*-* 02:30 90m", "cron 0 8-17/2 * * 1-5 150m", "cron 0 12 13 * fri 30h",
    ])
    func edgesAreConsistent(description: String) throws {
        let words = description.split(separator: " ").map(String.init)
        let rule: ScheduleRule
        switch words[0] {
        case "weekly": rule = try ScheduleRule(days: words[1], from: words[2], to: words[3])
        case "on": rule = try ScheduleRule(on: words[1..<words.count - 1].joined(separator: " "), for: minutes(words.last!))
        default: rule = try ScheduleRule(cron: words[1..<words.count - 1].joined(separator: " "), for: minutes(words.last!))
        }
        for zoneName in ["Europe/Berlin", "America/New_York", "Australia/Sydney"] {
            let tz = zone(zoneName)
            let all = rule.nextIntervals(after: utc("2026-03-01T00:00:00Z"), count: 400, in: tz)
            let horizon = try #require(all.last).start - 3 * 86_400
            let boundaries = Set(all.flatMap { [$0.start, $0.end] })
            var instant = utc("2026-03-04T00:00:17Z")
            var steps = 0
            while instant < horizon && steps < 400 {
                let edge = try #require(rule.nextEdge(after: instant, in: tz))
                #expect(boundaries.contains(edge), "\(description) \(zoneName) after \(instant)")
                #expect(!boundaries.contains { $0 > instant && $0 < edge }, "\(description) \(zoneName) after \(instant)")
                for probe in [instant, instant + edge.timeIntervalSince(instant) / 2] {
                    let containing = rule.intervals(containing: probe, in: tz)
                    #expect(containing == all.filter { $0.start <= probe && probe < $0.end }, "\(description) \(zoneName) at \(probe)")
                    let union = containing.isEmpty ? nil : DateInterval(start: containing[0].start, end: containing.map(\.end).max()!)
                    #expect(rule.activeInterval(at: probe, in: tz) == union, "\(description) \(zoneName) at \(probe)")
                }
                instant = edge
                steps += 1
            }
        }
    }

    private func minutes(_ text: String) -> Duration {
        text.hasSuffix("h") ? .seconds(Int(text.dropLast())! * 3600) : .seconds(Int(text.dropLast())! * 60)
    }

    @Test func descriptionsRecreateTheRule() throws {
        let weekly = try ScheduleRule(days: "weekdays", from: "9:00", to: "12:30")
        #expect(weekly.description == "--days mon-fri --from 09:00 --to 12:30")
        let calendar = try ScheduleRule(on: "mon-fri 9:00", for: .seconds(3 * 3600 + 1800))
        #expect(calendar.description == "--on 'Mon..Fri *-*-* 09:00:00' --length 3h30m")
        #expect(try ScheduleRule(on: "Mon..Fri *-*-* 09:00:00", for: .seconds(12_600)) == calendar)
        let cron = try ScheduleRule(cron: "0 9 * * 1-5", for: .seconds(45 * 60))
        #expect(cron.description == "--cron '0 9 * * 1-5' --length 45m")
        #expect(try ScheduleRule(on: "daily", for: .seconds(93_784)).description == "--on '*-*-* 00:00:00' --length 26h3m4s")
        #expect(try ScheduleRule(on: "daily", for: .milliseconds(1500)).description == "--on '*-*-* 00:00:00' --length 1.5s")
    }

    @Test func codableRoundTrip() throws {
        let rules = [
            try ScheduleRule(days: "fri-mon", from: "22:00", to: "07:00"),
            try ScheduleRule(on: "Sat,Sun 10:00 Europe/Berlin", for: .seconds(7200)),
            try ScheduleRule(cron: "*/15 8-17 * * mon-fri", for: .seconds(600)),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try rules.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        #expect(
            json == [
                #"{"days":"fri-mon","from":"22:00","kind":"weekly","to":"07:00"}"#,
                #"{"kind":"calendar","on":"Sat,Sun *-*-* 10:00:00 Europe\/Berlin","seconds":7200}"#,
                #"{"cron":"*\/15 8-17 * * mon-fri","kind":"cron","seconds":600}"#,
            ])
        for (rule, text) in zip(rules, json) {
            #expect(try JSONDecoder().decode(ScheduleRule.self, from: Data(text.utf8)) == rule)
        }
        let bad = #"{"kind":"weekly","days":"mon","from":"25:00","to":"07:00"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ScheduleRule.self, from: Data(bad.utf8)) }
        let window = try WeeklyWindow(days: "mon-fri", from: "09:00", to: "12:30")
        #expect(try JSONDecoder().decode(WeeklyWindow.self, from: try JSONEncoder().encode(window)) == window)
    }
}
