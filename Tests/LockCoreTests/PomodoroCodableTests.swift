import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Codable")
struct PomodoroCodableTests {
    func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    /// One machine in every state, with odd nanosecond values to prove exactness.
    func machines() throws -> [PomodoroMachine] {
        let m = try started(quick(cycles: 3))
        return [
            m.checkpoint(at: at(ns: 123_456_789)).machine,
            try m.pause(at: at(ns: 1_999_999_999)).machine,
            m.advance(to: at(6)).machine,
            try started(quick(manual: true, strict: true)).advance(to: at(2)).machine,
            live(m, until: 100),
            try m.stop(at: at(1)).machine,
        ]
    }

    @Test func snapshotRoundTripInEveryState() throws {
        let states = try machines().map(\.state.name)
        #expect(states == ["running", "paused", "running", "waiting", "finished", "finished"])
        for m in try machines() {
            let snap = m.snapshot
            let back = try roundTrip(snap)
            #expect(back == snap)
            #expect(PomodoroMachine.restore(back, at: at(7)) == PomodoroMachine.restore(snap, at: at(7)))
        }
    }

    @Test func snapshotJSONShape() throws {
        let m = try started().checkpoint(at: at(ns: 500_000_001)).machine
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(m.snapshot)) as? [String: Any]
        #expect(json?["version"] as? Int == 1)
        #expect(json?["state"] as? String == "running")
        #expect(json?["phase"] as? String == "focus")
        #expect((json?["deadline"] as? [String: Any])?["nanoseconds"] as? Int == 2_000_000_000)
        let checkpoint = json?["checkpoint"] as? [String: Any]
        #expect(checkpoint?["bootID"] as? String == "A")
        #expect(checkpoint?["remainingNanoseconds"] as? Int == 1_499_999_999)
        #expect((json?["config"] as? [String: Any])?["focus"] as? Double == 2)
        #expect(json?["unwatchedNanoseconds"] as? Int == 0)
    }

    @Test func unwatchedTimeSurvivesTheRoundTrip() throws {
        // Restored 0.25 s after its checkpoint: that quarter second was not watched.
        let snap = try started().checkpoint(at: at(0.5)).machine.snapshot
        let restored = PomodoroMachine.restore(snap, at: at(0.75)).machine
        #expect(restored.unwatched == .milliseconds(250))
        let back = try roundTrip(restored.snapshot)
        #expect(back.unwatched == .milliseconds(250))
        // Snapshots written before the field existed decode with nothing unwatched.
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(snap)) as! [String: Any]
        json["unwatchedNanoseconds"] = nil
        let old = try JSONDecoder().decode(PomodoroSnapshot.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.unwatched == .zero)
    }

    /// Encodes a valid snapshot, lets `edit` damage it, and decodes it again.
    func decodeEdited(_ m: PomodoroMachine, _ edit: (inout [String: Any]) -> Void) throws -> PomodoroSnapshot {
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(m.snapshot)) as! [String: Any]
        edit(&json)
        return try JSONDecoder().decode(PomodoroSnapshot.self, from: JSONSerialization.data(withJSONObject: json))
    }

    @Test func inconsistentSnapshotsAreRejected() throws {
        let running = try started(quick(cycles: 3))
        let paused = try running.pause(at: at(1)).machine
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["version"] = 2 } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["state"] = "dozing" } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["cycle"] = 0 } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["cycle"] = 4 } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["completedFocusPhases"] = 2 } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["phase"] = "long-break" } }
        #expect(throws: DecodingError.self) { try decodeEdited(paused) { $0["remainingNanoseconds"] = 0 } }
        #expect(throws: DecodingError.self) {
            try decodeEdited(running) { json in
                var checkpoint = json["checkpoint"] as! [String: Any]
                checkpoint["remainingNanoseconds"] = 2_000_000_001
                json["checkpoint"] = checkpoint
            }
        }
        #expect(throws: DecodingError.self) {
            try decodeEdited(running) { json in
                var checkpoint = json["checkpoint"] as! [String: Any]
                checkpoint["remainingNanoseconds"] = -1
                json["checkpoint"] = checkpoint
            }
        }
        #expect(throws: DecodingError.self) { try decodeEdited(paused) { $0["remainingNanoseconds"] = 3_000_000_000 } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["unwatchedNanoseconds"] = -1 } }
        #expect(throws: DecodingError.self) { try decodeEdited(running) { $0["unwatchedNanoseconds"] = 2_000_000_001 } }
        #expect(throws: DecodingError.self) {
            try decodeEdited(running) { json in
                var config = json["config"] as! [String: Any]
                config["focus"] = 0
                json["config"] = config
            }
        }
        // A break after the last focus phase cannot exist.
        let lastFocus = running.advance(to: at(8.5)).machine
        #expect(phaseText(lastFocus) == "focus 3")
        #expect(throws: DecodingError.self) { try decodeEdited(lastFocus) { $0["phase"] = "short-break" } }
        // The unedited ones decode.
        _ = try decodeEdited(running) { _ in }
        _ = try decodeEdited(lastFocus) { _ in }
    }

    @Test func configRoundTripDefaultsAndValidation() throws {
        let config = PomodoroConfig(
            focus: .seconds(50 * 60), shortBreak: .seconds(10), longBreak: .milliseconds(1500),
            longEvery: 3, cycles: 6, manual: true, strict: true)
        #expect(try roundTrip(config) == config)
        #expect(try roundTrip(PomodoroConfig()) == PomodoroConfig())
        let partial = try JSONDecoder().decode(PomodoroConfig.self, from: Data(#"{"focus": 3000, "cycles": 2}"#.utf8))
        #expect(partial == PomodoroConfig(focus: .seconds(3000), cycles: 2))
        do {
            _ = try JSONDecoder().decode(PomodoroConfig.self, from: Data(#"{"longBreak": 108000}"#.utf8))
            Issue.record("a 30h long break decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription == "long-break: 30h is too long (at most 12h)")
        }
    }

    @Test func eventsRoundTripInTheirFlatForm() throws {
        var events: [PomodoroEvent] = []
        var m = try started(quick(cycles: 2, manual: true))
        for step in [
            { (m: PomodoroMachine) throws -> PomodoroOutcome in try m.pause(at: at(0.5)) },
            { m in try m.resume(at: at(1)) },
            { m in m.advance(to: at(2.5)) },
            { m in try m.next(at: at(3)) },
            { m in try m.skip(at: at(3.5)) },
            { m in m.advance(to: at(10)) },
        ] {
            let out = try step(m)
            events += out.events
            m = out.machine
        }
        events.insert(try PomodoroMachine.start(quick, at: at(0)).events[0], at: 0)
        events.append(try started().stop(at: at(1)).events.last!)
        let types = Set(events.map(\.type))
        #expect(types == ["phaseStarted", "phaseEnded", "focusCompleted", "paused", "resumed", "waiting", "runFinished"])
        #expect(try roundTrip(events) == events)

        let line = String(decoding: try JSONEncoder().encode(events[1]), as: UTF8.self)
        #expect(line.contains(#""type":"paused""#))
        #expect(line.contains(#""remainingSeconds":1.5"#))
        #expect(line.contains(#""phase":"focus""#))
        #expect(line.contains(#""cycles":2"#))
    }
}
