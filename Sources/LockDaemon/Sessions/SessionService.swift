import Foundation
import LockCore
import LockStore
import Logging

/// The set of active sessions and every change to it.
///
/// Every change goes through `commit`: the change is saved, then, if it changes what is
/// blocked, every enforcer applies the new desired block, then it takes effect here, the
/// deadline timer is re-armed and the events go out. The failure policy, the same for every
/// change: **if enforcement fails, the saved change is taken back and the enforcers keep the
/// previous block: the change did not happen, and the caller hears why.** If saving fails, a
/// change someone asked for is refused the same way; an end that time brought about still
/// happens (the saved state catches up at the next start, where the session has ended too).
/// Changes nobody asked for (time running out, a correction once the clock is synchronised)
/// are retried until they go through. At start-up the saved sessions are the truth: they are
/// enforced, and retried at every checkpoint until that succeeds.
public actor SessionService {
    /// Set only by the actor itself (isolation keeps everything else out); internal so that its
    /// extensions in other files can.
    var sessions = SessionSet() {
        // What to block is worked out when the rules change, not at every status call and
        // checkpoint: for a 100 000-name block that is the difference between microseconds and
        // a tenth of a second.
        didSet {
            if let pending = pendingDesired {
                desired = pending
                pendingDesired = nil
            } else if oldValue.sessions.map(\.rules) != sessions.sessions.map(\.rules)
                || oldValue.sessions.map(\.strict) != sessions.sessions.map(\.strict)
                || oldValue.sessions.map(\.target) != sessions.sessions.map(\.target)
            {
                desired = block(of: sessions)
            }
        }
    }
    /// The desired block of the sessions about to be assigned, when the commit path has worked
    /// it out already (for enforcement): a large block is then not worked out twice.
    private var pendingDesired: DesiredBlock?
    /// `block(of: sessions)`, kept up to date.
    private var desired = DesiredBlock.empty
    /// The apps whose launches the owners count (allowances' open limits), part of every
    /// desired block.
    private(set) var countedApps: [CountedApp] = []
    /// Which targets can be enforced: the configured device groups and the LAN enforcers' reach.
    private var targets: TargetPolicy
    let profiles: any ProfileCatalog
    let store: StateStore
    private let enforcement: Enforcement
    private let events: EventBus
    let timer: any DeadlineTimer
    let clock: @Sendable () -> ClockReading
    let makeID: @Sendable () -> String
    /// The session owners asked at every reconciliation (`register`).
    var owners: [any SessionOwner] = []
    /// Finds the loaded imported lists, for weighing a strict session's new exceptions.
    let listResolver: @Sendable (BlocklistReference) -> Blocklist?
    let logger: Logger
    let gate = SerialGate()
    private var maxSession: Duration
    /// The configuration's `[friction]`, for the policy each new session keeps.
    private var frictionDefaults: FrictionSettings?
    /// The enforcers are not known to hold the current sessions' block.
    var needsEnforcement = false
    /// Profiles changed but their running sessions could not be given the new rules yet.
    var staleProfiles: Set<String> = []

    /// How soon a change that time brought about is tried again after it failed.
    static let retryDelay: Duration = .seconds(5)

    /// Creates the service; call `restore()` before anything else.
    public init(
        profiles: any ProfileCatalog, store: StateStore, enforcement: Enforcement, events: EventBus,
        timer: any DeadlineTimer, maxSession: Duration, logger: Logger,
        clock: @escaping @Sendable () -> ClockReading, targets: TargetPolicy = .localOnly,
        makeID: @escaping @Sendable () -> String = { SessionService.randomID() },
        lists: @escaping @Sendable (BlocklistReference) -> Blocklist? = { _ in nil },
        friction: FrictionSettings? = nil
    ) {
        self.frictionDefaults = friction
        self.targets = targets
        desired = DesiredBlock(lan: LANBlock(groups: targets.groups))
        self.listResolver = lists
        self.profiles = profiles
        self.store = store
        self.enforcement = enforcement
        self.events = events
        self.timer = timer
        self.maxSession = maxSession
        self.logger = logger
        self.clock = clock
        self.makeID = makeID
    }

    /// A 12-hex-digit session identifier.
    public static func randomID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12))
    }

    // MARK: - Queries

    /// The active sessions, in the order they started.
    public var active: [Session] { sessions.sessions }

    /// What the enforcers are told to block now.
    public var desiredBlock: DesiredBlock { desired }

    /// The longest session that may be started or extended to (`max_session`; only this service
    /// keeps it).
    public func setMaxSession(_ limit: Duration) { maxSession = limit }

    /// The longest session that may be started or extended to.
    public var maxSessionLength: Duration { maxSession }

    /// The configuration's `[friction]`; sessions already running keep the policy they started with.
    public func setFrictionDefaults(_ settings: FrictionSettings?) { frictionDefaults = settings }

    /// The policy a session of `profile` starts with.
    func friction(for profile: Profile) -> FrictionPolicy {
        FrictionSettings.resolve(profile: profile.friction, configuration: frictionDefaults)
    }

    /// The targets that can be enforced now.
    public var targetPolicy: TargetPolicy { targets }

    /// Takes new device groups (after a reload) and puts them in force: the LAN enforcers are
    /// told the new members at once. Sessions keep their targets; one whose group is gone is
    /// reported by the LAN enforcers until it ends.
    public func setTargetPolicy(_ policy: TargetPolicy) async {
        await gate.run {
            guard policy != targets else { return }
            let groupsChanged = policy.groups != targets.groups
            targets = policy
            guard groupsChanged else { return }
            desired = block(of: sessions)
            await enforceAll(now: clock())
        }
    }

    /// Why `target` cannot be enforced here, or nil.
    public func checkTarget(_ target: BlockTarget) -> TargetProblem? { targets.problem(with: target) }

    // MARK: - Requests

    /// Starts blocking a profile by hand, on `target` (this machine by default).
    public func start(
        _ profile: String, for length: SessionLength, strict: Bool?,
        target: BlockTarget = .thisMachine
    ) async throws(SessionError) -> Session {
        try await gate.run { () async throws(SessionError) -> Session in
            let now = clock()
            if let problem = targets.problem(with: target) { throw .invalidTarget(problem) }
            guard let expansion = await profiles.expansion(of: profile) else { throw .unknownProfile(profile) }
            let duration = try validated(length, now: now)
            if let running = sessions.sessions.first(where: { $0.profile == profile && $0.origin == .manual && $0.target.overlaps(target) })
            {
                throw .alreadyActive(running)
            }
            var session = Session(
                id: makeID(), profile: expansion.profile.name, origin: .manual,
                strict: strict ?? expansion.profile.strict, rules: expansion.rules, duration: duration, now: now,
                target: target)
            session.friction = friction(for: expansion.profile)
            try await commitRequest(SessionChange(started: [session]), at: now)
            logger.info("session started", metadata: metadata(session, ["duration": "\(DurationParser.format(duration))"]))
            return session
        }
    }

    /// Stops the sessions a reference names (an id, or a profile's sessions other than the
    /// Pomodoro timer's). Refused when any of them is strict.
    public func stop(_ reference: String) async throws(SessionError) -> [Session] {
        try await gate.run { () async throws(SessionError) -> [Session] in
            let now = clock()
            var matching = sessions.sessions(matching: reference)
            guard !matching.isEmpty else { throw .noSession(reference) }
            // The Pomodoro timer owns its sessions; a profile name stops the others and leaves
            // the timer's alone, and only a reference to nothing else is refused.
            let owned = matching.filter { $0.origin == .pomodoro }
            matching.removeAll { $0.origin == .pomodoro }
            if matching.isEmpty, let session = owned.first { throw .ownedByPomodoro(session) }
            if let strict = matching.first(where: \.strict) { throw .strict(strict.resumed(at: now)) }
            try await commitRequest(SessionChange(ended: matching.map { .init(session: $0, reason: .stopped, at: now.wall) }), at: now)
            for session in matching { logger.info("session stopped", metadata: metadata(session)) }
            return matching
        }
    }

    /// Ends a strict session early through emergency access, the challenge having been
    /// answered; it ends as `unlocked` (recorded against the weekly allowance in the same
    /// transaction). A session owned by a schedule stays ended until the schedule's next interval.
    public func unlock(_ id: String) async throws(SessionError) -> Session {
        try await gate.run { () async throws(SessionError) -> Session in
            let now = clock()
            guard let session = sessions.session(id: id) else { throw .noSession(id) }
            try await commitRequest(SessionChange(ended: [.init(session: session, reason: .unlocked, at: now.wall)]), at: now)
            logger.notice("strict session ended early through emergency access", metadata: metadata(session))
            return session
        }
    }

    /// Lengthens a manual session (an id, or the manual session of a profile).
    public func extend(_ reference: String, by extra: Duration) async throws(SessionError) -> Session {
        try await gate.run { () async throws(SessionError) -> Session in
            let now = clock()
            guard extra >= .seconds(1) else { throw .invalidLength(.notAnExtension) }
            guard extra <= maxSession else { throw .invalidLength(.tooLong(limit: maxSession)) }
            let matching = sessions.sessions(matching: reference)
            guard !matching.isEmpty else { throw .noSession(reference) }
            guard let session = matching.first(where: { $0.origin == .manual }) else {
                throw .notManual(reference: reference, origin: matching[0].origin)
            }
            let extended = session.extended(by: extra, at: now)
            guard extended.remaining(at: now) <= maxSession else { throw .invalidLength(.tooLong(limit: maxSession)) }
            try await commitRequest(SessionChange(updated: [.init(old: session, new: extended)]), at: now, extendedBy: extra)
            logger.info("session extended", metadata: metadata(extended, ["by": "\(DurationParser.format(extra))"]))
            return extended
        }
    }

    // MARK: - The commit path

    /// Puts `change` in force: the enforcers apply the new desired block (all or nothing), then
    /// the change and the owners' records (`writes`) are saved in one transaction, then it takes
    /// effect here and the events go out. Enforcing before saving leaves nothing to take back in
    /// the store: when saving a change someone asked for fails, the enforcers are given the
    /// previous block again (the one compensation, and the same for every change).
    ///
    /// - Parameter counted: the owners' counted apps now (nil: unchanged); put in force with the change.
    func commit(
        _ change: SessionChange, at now: ClockReading, writes: [StateWrite] = [], extendedBy extra: Duration? = nil,
        savingIsOptional: Bool = false, counted: [CountedApp]? = nil
    ) async throws(SessionError) {
        let countedChange = counted.map { $0 != countedApps } ?? false
        guard !change.isEmpty || !writes.isEmpty || countedChange else { return }
        if !savingIsOptional {
            // The usual reason saving fails is known before any enforcer moves.
            do { try store.checkWritable() } catch { throw .storage(StorageFailure(error)) }
        }
        let next = change.applied(to: sessions)
        var applied: DesiredBlock?
        if change.changesRules || needsEnforcement || countedChange {
            let block = block(of: next, counted: counted ?? countedApps)
            do { try await enforcement.apply(block, previous: desired) } catch {
                events.publish(
                    .enforcementFailed(enforcer: (error as? EnforcementFailure)?.enforcer ?? "?", message: "\(error)", at: now.wall))
                throw .enforcement("\(error)")
            }
            applied = block
            needsEnforcement = false
        }
        do { try store.commit(change, writes: writes, at: now) } catch {
            guard savingIsOptional else {
                if let applied {
                    do { try await enforcement.apply(desired, previous: applied) } catch {
                        needsEnforcement = true
                        logger.critical("cannot put back the block of a change that could not be saved", metadata: ["error": "\(error)"])
                    }
                }
                throw .storage(StorageFailure(error))
            }
            logger.error(
                "cannot save the change; it happens anyway and the saved state catches up at the next start",
                metadata: ["error": "\(error)"])
        }
        if let counted { countedApps = counted }
        if change.changesRules {
            pendingDesired = applied
        } else if let applied {
            desired = applied
        }
        sessions = next
        timer.arm(at: sessions.nextDeadline)
        for session in change.started { events.publish(.sessionStarted(session, at: now)) }
        for ending in change.ended { events.publish(.sessionEnded(ending.session, reason: ending.reason, at: now)) }
        if let extra {
            for update in change.updated { events.publish(.sessionExtended(update.new, by: extra, at: now)) }
        }
    }

    func enforceAll(now: ClockReading) async {
        let failures = await enforcement.applyEach(desired)
        needsEnforcement = !failures.isEmpty
        for failure in failures {
            events.publish(.enforcementFailed(enforcer: failure.enforcer, message: failure.underlying, at: now.wall))
        }
    }

    /// The desired block of `set`, with the counted apps.
    func block(of set: SessionSet, counted: [CountedApp]? = nil) -> DesiredBlock {
        var block = set.desiredBlock(groups: targets.groups)
        block.counted = counted ?? countedApps
        return block
    }

    private func validated(_ length: SessionLength, now: ClockReading) throws(SessionError) -> Duration {
        let duration: Duration
        switch length {
        case .duration(let value): duration = value
        case .until(let date):
            // Checked as a number first: a far-away date must not overflow the conversion. Whole
            // seconds, rounded up: the block never ends before the time asked for (rounded to
            // the nearest, "until 17:30" ended at 17:29:59.6 and was shown as 17:29).
            let exact = date.timeIntervalSince(now.wall)
            guard exact > 0 else { throw .invalidLength(.notInFuture(date)) }
            let seconds = exact.rounded(.up)
            guard let value = Duration.checkedSeconds(seconds), value <= maxSession else {
                throw .invalidLength(.tooLong(limit: maxSession))
            }
            duration = value
        }
        guard duration >= .seconds(1) else { throw .invalidLength(.tooShort) }
        guard duration <= maxSession else { throw .invalidLength(.tooLong(limit: maxSession)) }
        return duration
    }

    func endDate(of session: Session, now: ClockReading) -> Date {
        if session.bootID == now.bootID { return now.wall.addingTimeInterval(session.remaining(at: now).seconds) }
        let end = session.checkpointWall.addingTimeInterval(session.checkpointRemaining.seconds)
        // A checkpoint taken under a faked or unset clock must not date the end before it began.
        return min(max(end, session.startedAt), now.wall)
    }

    func metadata(_ session: Session, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var result: Logger.Metadata = ["profile": "\(session.profile)", "session": "\(session.id)", "origin": "\(session.origin)"]
        if !session.target.isThisMachine { result["target"] = "\(session.target)" }
        result.merge(extra) { _, new in new }
        return result
    }
}
