import Foundation
import LockCore
import Testing

/// Wall time of boot-clock zero in the readings below.
let epoch = Date(timeIntervalSince1970: 1_750_000_000)

/// A reading in boot "A" at `t` seconds after boot, with the wall clock in step.
func at(_ t: Double) -> ClockReading {
    ClockReading(wall: epoch.addingTimeInterval(t), boot: BootTime(seconds: t), bootID: "A")
}

/// A reading in boot "A" at exactly `ns` nanoseconds after boot.
func at(ns: Int64) -> ClockReading {
    ClockReading(wall: epoch.addingTimeInterval(Double(ns) / 1e9), boot: BootTime(nanoseconds: ns), bootID: "A")
}

/// A reading with every clock given separately, for reboots and wall-clock changes.
func reading(boot: Double, wall: Double, id: String) -> ClockReading {
    ClockReading(wall: epoch.addingTimeInterval(wall), boot: BootTime(seconds: boot), bootID: id)
}

/// Second-scale phases: focus 2 s, short break 1 s, long break 3 s, long break after every 2nd
/// focus. Starting at 0 the timeline is F1 0–2, S 2–3, F2 3–5, L 5–8, F3 8–10, S 10–11, F4 11–13,
/// L 13–16, F5 16–18, …
let quick = PomodoroConfig(focus: .seconds(2), shortBreak: .seconds(1), longBreak: .seconds(3), longEvery: 2)

func quick(cycles: Int? = nil, manual: Bool = false, strict: Bool = false) -> PomodoroConfig {
    var c = quick
    c.cycles = cycles
    c.manual = manual
    c.strict = strict
    return c
}

/// A machine started at `t`.
func started(_ config: PomodoroConfig = quick, at t: Double = 0) throws -> PomodoroMachine {
    try PomodoroMachine.start(config, at: at(t)).machine
}

/// "2s" for whole seconds, "1500000000ns" otherwise, so tests compare exact values.
func text(_ d: Duration) -> String {
    let ns = d.nanosecondsClamped
    return ns % 1_000_000_000 == 0 ? "\(ns / 1_000_000_000)s" : "\(ns)ns"
}

/// Events in a compact form that makes expected sequences easy to read.
func summary(_ events: [PomodoroEvent]) -> [String] {
    events.map { event in
        switch event {
        case .phaseStarted(let phase, let cycle, _, let duration, _, _): "start \(phase.rawValue) \(cycle) \(text(duration))"
        case .phaseEnded(let phase, let cycle, _, let reason, let elapsed, _): "end \(phase.rawValue) \(cycle) \(reason) \(text(elapsed))"
        case .focusCompleted(let cycle, _, let focused, _, _): "focused \(cycle) \(text(focused))"
        case .paused(let phase, let cycle, _, let remaining, _): "pause \(phase.rawValue) \(cycle) \(text(remaining))"
        case .resumed(let phase, let cycle, _, _, _): "resume \(phase.rawValue) \(cycle)"
        case .waiting(let next, let cycle, _, _): "wait \(next.rawValue) \(cycle)"
        case .runFinished(let reason, let completed, _): "finish \(reason) \(completed)"
        }
    }
}

extension PomodoroOutcome {
    /// `summary(events)`.
    var log: [String] { summary(events) }
}

/// The phase that is running or paused plus its cycle, e.g. "focus 2", or the state name.
func phaseText(_ m: PomodoroMachine) -> String {
    if let phase = m.phase { return "\(phase.rawValue) \(m.cycle)" }
    return m.state.name
}

/// `m` followed the way the daemon follows a run: advanced exactly at each deadline up to `t`,
/// then checkpointed at `t`.
func live(_ m: PomodoroMachine, until t: Double) -> PomodoroMachine {
    var m = m
    while let deadline = m.nextDeadline, deadline <= BootTime(seconds: t) {
        m = m.advance(to: at(ns: deadline.nanoseconds)).machine
    }
    return m.checkpoint(at: at(t)).machine
}
