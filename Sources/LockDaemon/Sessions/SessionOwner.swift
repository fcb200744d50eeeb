import LockCore
import LockStore

/// Something that owns sessions: the schedules (`Scheduler`), the Pomodoro timer
/// (`PomodoroEngine`), next the daily allowances.
///
/// An owner never starts or ends a session itself. It answers one question, "given now, which
/// sessions should I own?", and `SessionService` puts every owner's answer in force together
/// with whatever else changes at that instant (a manual start, a stop, an emergency unlock,
/// sessions running out): one commit, one SQLite transaction that saves the sessions with the
/// owners' records, one pass over the enforcers, one set of events. An owner takes its new
/// state into use in `settle` only once its answer went through, so a refused answer leaves
/// nothing to undo.
///
/// Adding an owner: give its sessions a `SessionOrigin` case, implement this protocol, and
/// register it in `DaemonCore.start` (`sessions.register`). It calls
/// `sessions.reconcile(asking: self)` whenever its own answer may have changed (its timer
/// fired, a request changed its state); it is asked at every other reconciliation too.
public protocol SessionOwner: Actor {
    /// Whether sessions of `origin` are this owner's; it is shown only those.
    nonisolated func owns(_ origin: SessionOrigin) -> Bool

    /// The sessions it should own at `now`, given those it owns (`owned`), and the records to
    /// save with them. `asked` is true when this owner asked for the reconciliation (a request
    /// it has pending counts only then). Must not wait for the session service: it is called
    /// while the service holds its gate.
    func claims(at now: ClockReading, owned: [Session], asked: Bool) async -> OwnerClaims

    /// How its claims fared; called once after every `claims`, within the same reconciliation.
    func settle(_ outcome: OwnerOutcome) async
}

/// An owner's answer at one instant.
public struct OwnerClaims: Sendable {
    /// The session each origin should have (nil: none). Origins left out are left as they are.
    public var sessions: [SessionOrigin: OwnedSession?]
    /// A change someone asked for (a Pomodoro start): refused as a whole when it cannot be
    /// saved. Changes time brought about happen even then, and are saved later.
    public var isRequest: Bool
    /// The owner's records to save in the same transaction, given which of its origins were
    /// refused (every one of them when the whole batch could not go through).
    public var records: @Sendable (_ refused: Set<SessionOrigin>) -> [StateWrite]
    /// The apps whose launches it counts (the allowances' open limits), put in force with the
    /// batch; nil: it counts none.
    public var counted: [CountedApp]?

    /// Creates claims.
    public init(
        sessions: [SessionOrigin: OwnedSession?] = [:], isRequest: Bool = false,
        records: @escaping @Sendable (_ refused: Set<SessionOrigin>) -> [StateWrite] = { _ in [] }, counted: [CountedApp]? = nil
    ) {
        self.counted = counted
        self.sessions = sessions
        self.isRequest = isRequest
        self.records = records
    }

    /// Nothing to change.
    public static let none = OwnerClaims()
}

/// How an owner's claims fared.
public struct OwnerOutcome: Sendable {
    /// The instant of the reconciliation.
    public var now: ClockReading
    /// Whether this owner asked for it.
    public var asked: Bool
    /// Why the whole batch did not go through (then nothing changed), or nil.
    public var failure: SessionError?
    /// Claims of this owner that were refused, with why (the others went through).
    public var refused: [SessionOrigin: SessionError]
    /// Whether the records it handed over were saved.
    public var saved: Bool
    /// The sessions it owns now.
    public var owned: [Session]

    /// Why the session of `origin` is not as claimed, or nil.
    public func problem(_ origin: SessionOrigin) -> SessionError? { failure ?? refused[origin] }
}
