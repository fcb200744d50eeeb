import Foundation
import LockCore
import LockStore
import Logging

/// Ending a strict block early, with friction: a challenge (wait, then type a random text),
/// then the end through the session service's one commit path, at most so many times in any
/// seven days. The friction comes from the profile's `[friction]`, else the configuration's;
/// without either, strict means strict.
///
/// Challenges live in memory, one per session: asking again replaces it (leaving restarts the
/// wait), and a restart of the daemon voids them all. The wait is measured on the boot clock,
/// so moving the wall clock does not shorten it.
public actor EmergencyAccess {
    private let sessions: SessionService
    private let profiles: ProfileService
    private let store: StateStore
    /// The configuration's `[friction]`, pushed at start-up and by each reload.
    private var friction: FrictionSettings?
    private let clock: @Sendable () -> ClockReading
    private let logger: Logger
    private let gate = SerialGate()
    private var challenges: [String: UnlockChallenge] = [:]
    private var generator: any RandomNumberGenerator & Sendable

    /// Creates the service; `generator` makes the texts (the system's in the daemon).
    public init(
        sessions: SessionService, profiles: ProfileService, store: StateStore,
        friction: FrictionSettings?, clock: @escaping @Sendable () -> ClockReading,
        logger: Logger, generator: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.sessions = sessions
        self.profiles = profiles
        self.store = store
        self.friction = friction
        self.clock = clock
        self.logger = logger
        self.generator = generator
    }

    /// Takes the configuration's `[friction]` (after a reload).
    public func setFriction(_ friction: FrictionSettings?) { self.friction = friction }

    /// The policy of profiles without a `[friction]` of their own.
    public var defaultPolicy: FrictionPolicy { FrictionSettings.resolve(profile: nil, configuration: friction) }

    /// A new challenge for the strict session `reference` names, replacing any earlier one.
    public func challenge(_ reference: String) async throws(EmergencyError) -> (Session, UnlockChallenge, EmergencyAllowance.Status) {
        try await gate.run { () async throws(EmergencyError) -> (Session, UnlockChallenge, EmergencyAllowance.Status) in
            let now = clock()
            let session = try await strictSession(reference)
            let (policy, allowance) = try await standing(of: session, at: now)
            guard policy.allowsUnlocking else { throw .notAllowed(session.resumed(at: now)) }
            guard allowance.allowsAnother else { throw .allowanceUsed(session.resumed(at: now), allowance) }
            var random = generator
            let challenge = UnlockChallenge(id: SessionService.randomID(), session: session.id, policy: policy, now: now, using: &random)
            generator = random
            challenges[session.id] = challenge
            logger.notice(
                "emergency access asked for",
                metadata: [
                    "session": "\(session.id)", "profile": "\(session.profile)",
                    "delay": "\(DurationParser.format(policy.delay))",
                ])
            return (session, challenge, allowance)
        }
    }

    /// Answers the challenge of the session `reference` names; on success the session ends
    /// (as `unlocked`) and the allowance is returned as it stands after it.
    public func answer(_ reference: String, challenge id: String?, text: String?) async throws(EmergencyError)
        -> (Session, EmergencyAllowance.Status)
    {
        try await gate.run { () async throws(EmergencyError) -> (Session, EmergencyAllowance.Status) in
            guard let id, let text else { throw .incompleteAnswer }
            let now = clock()
            let session = try await strictSession(reference)
            guard var challenge = challenges[session.id], challenge.id == id else { throw .noChallenge(session) }
            switch challenge.check(text, at: now) {
            case .tooEarly(let remaining):
                throw .tooEarly(session, remaining: remaining)
            case .expired:
                challenges[session.id] = nil
                throw .expired(session)
            case .pasted:
                challenges[session.id] = nil
                throw .pasted(session)
            case .wrong:
                challenge.triesLeft -= 1
                challenges[session.id] = challenge.triesLeft > 0 ? challenge : nil
                throw .wrongAnswer(session, triesLeft: max(0, challenge.triesLeft))
            case .accepted:
                break
            }
            // The allowance again, now: another unlock may have used it since the challenge.
            let (policy, allowance) = try await standing(of: session, at: now)
            guard policy.allowsUnlocking else { throw .notAllowed(session) }
            guard allowance.allowsAnother else { throw .allowanceUsed(session, allowance) }
            let ended: Session
            do throws(SessionError) { ended = try await sessions.unlock(session.id) } catch { throw .session(error) }
            challenges[session.id] = nil
            let after = try await standing(of: ended, at: clock()).1
            return (ended, after)
        }
    }

    /// Where the allowance that applies to `profile` stands (for status and insights).
    public func allowance(for profile: String?) async throws(EmergencyError) -> EmergencyAllowance.Status {
        let now = clock()
        var own: FrictionSettings?
        if let profile { own = await profiles.profile(profile)?.friction }
        let policy = FrictionSettings.resolve(profile: own, configuration: friction)
        return EmergencyAllowance.status(try records(scope: own?.perWeek != nil ? profile : nil), policy: policy, at: now)
    }

    // MARK: - Helpers

    private func strictSession(_ reference: String) async throws(EmergencyError) -> Session {
        let now = clock()
        let matching = SessionSet(await sessions.active).sessions(matching: reference)
        guard !matching.isEmpty else { throw .noSession(reference) }
        let strict = matching.filter(\.strict)
        guard !strict.isEmpty else { throw .notStrict(matching[0].resumed(at: now)) }
        let unowned = strict.filter { $0.origin != .pomodoro }
        guard !unowned.isEmpty else { throw .ownedByPomodoro(strict[0].resumed(at: now)) }
        guard unowned.count == 1 else { throw .ambiguous(reference: reference, sessions: unowned) }
        return unowned[0]
    }

    /// The policy `session` started with (for one saved before that was kept, its profile's
    /// now) and the allowance it counts against: the profile's own early ends when it sets
    /// `emergency_per_week`, every early end otherwise.
    private func standing(of session: Session, at now: ClockReading) async throws(EmergencyError)
        -> (FrictionPolicy, EmergencyAllowance.Status)
    {
        let own = await profiles.profile(session.profile)?.friction
        let policy = session.friction ?? FrictionSettings.resolve(profile: own, configuration: friction)
        let records = try records(scope: own?.perWeek != nil ? session.profile : nil)
        return (policy, EmergencyAllowance.status(records, policy: policy, at: now))
    }

    private func records(scope profile: String?) throws(EmergencyError) -> [UnlockRecord] {
        do {
            let all = try store.unlockRecords()
            return profile.map { name in all.filter { $0.profile == name } } ?? all
        } catch {
            throw .storage(StorageFailure(error))
        }
    }
}
