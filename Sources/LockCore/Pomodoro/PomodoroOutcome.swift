import Foundation

/// The result of an accepted pomodoro operation: the new machine and what happened, in order.
public struct PomodoroOutcome: Sendable, Equatable {
    /// The machine after the operation; replaces the caller's copy.
    public var machine: PomodoroMachine
    /// Everything that happened, oldest first, including phase ends caught up before the
    /// operation itself was applied. Meant for the event stream and the history.
    public var events: [PomodoroEvent]

    /// Creates an outcome.
    public init(machine: PomodoroMachine, events: [PomodoroEvent]) {
        self.machine = machine
        self.events = events
    }
}
