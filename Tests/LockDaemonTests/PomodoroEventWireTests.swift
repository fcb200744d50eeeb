import Foundation
import LockCore
import LockProtocol
import TestSupport
import Testing

@testable import LockDaemon

/// The event stream's Pomodoro details, read from the typed event, say exactly what the event's
/// JSON form says (the oracle: every key of the encoded object as text, `type` as `event`).
@Suite struct PomodoroEventWireTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let events: [PomodoroEvent] = [
        .phaseStarted(phase: .focus, cycle: 1, cycles: 4, duration: .seconds(1500), at: at, endsAt: at + 1500),
        .phaseStarted(phase: .shortBreak, cycle: 2, cycles: nil, duration: .milliseconds(250), at: at, endsAt: at + 0.25),
        .phaseEnded(phase: .focus, cycle: 3, cycles: 4, reason: .skipped, elapsed: .seconds(61.5), at: at),
        .focusCompleted(cycle: 2, cycles: nil, focused: .seconds(1500), startedAt: at - 1500, at: at),
        .paused(phase: .focus, cycle: 1, cycles: 2, remaining: .seconds(90), at: at),
        .resumed(phase: .longBreak, cycle: 4, cycles: 4, endsAt: at + 900, at: at),
        .waiting(next: .focus, cycle: 5, cycles: nil, at: at),
        .runFinished(reason: .completed, completedFocusPhases: 4, at: at),
    ]

    @Test(arguments: events)
    func typedDetailsMatchTheJSONForm(_ event: PomodoroEvent) throws {
        let object = try JSONMembers.read(API.makeEncoder().encode(event))
        #expect(object.keys == Set(object.scalars.keys), "the event's JSON form is flat")
        var expected = ["run": "r1"]
        for (key, value) in object.scalars where key != "at" { expected[key == "type" ? "event" : key] = value }
        #expect(PomodoroEventWire.details(event, run: "r1") == expected)
    }
}
