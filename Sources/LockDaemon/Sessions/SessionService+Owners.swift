import LockCore
import LockStore
import Logging

// One batch per instant: a request (or sessions running out) together with every owner's answer
// to "which sessions should I own now?", committed once (see `SessionOwner`).
extension SessionService {
    /// Owners asked at every reconciliation from now on (once, at start-up, by `DaemonCore`).
    public func register(_ owners: [any SessionOwner]) {
        for owner in owners where !self.owners.contains(where: { $0 === owner }) { self.owners.append(owner) }
    }

    /// Puts every owner's claims for now in force as one batch, `owner` (registered or not)
    /// having asked; returns how `owner`'s claims fared.
    @discardableResult
    public func reconcile(asking owner: any SessionOwner) async -> OwnerOutcome {
        await gate.run {
            let now = clock()
            let batch = await reconcileNow(SessionChange(), at: now, asking: owner)
            return batch.outcomes[ObjectIdentifier(owner)]
                ?? OwnerOutcome(now: now, asked: true, failure: nil, refused: [:], saved: true, owned: [])
        }
    }

    /// Makes the one session owned by `origin` match `desired`: started if missing, adjusted in
    /// place if its profile is the same (its end moves, nothing is lifted in between), replaced
    /// if the profile changed, ended for nil. For owners that are not (yet) a `SessionOwner`:
    /// it is reconciled in the same batch as the registered owners' claims. Returns the session
    /// now in force, if any.
    @discardableResult
    public func reconcileOwned(_ origin: SessionOrigin, _ desired: OwnedSession?) async throws(SessionError) -> Session? {
        precondition(origin != .manual, "manual sessions are not owned")
        return try await gate.run { () async throws(SessionError) -> Session? in
            let now = clock()
            let batch = await reconcileNow(SessionChange(), at: now, extra: [origin: desired])
            if let error = batch.failure ?? batch.refused[origin] { throw error }
            return sessions.sessions.first { $0.origin == origin }
        }
    }

    /// A change someone asked for (start, stop, extend, unlock), with the owners' claims of the
    /// same instant; all of it goes through, or none of it and the error is thrown.
    func commitRequest(_ change: SessionChange, at now: ClockReading, extendedBy extra: Duration? = nil) async throws(SessionError) {
        let batch = await reconcileNow(change, at: now, extendedBy: extra)
        if let failure = batch.failure { throw failure }
    }

    /// The result of one batch.
    struct Batch {
        /// Why nothing changed, or nil.
        var failure: SessionError?
        /// Owned origins whose claims were refused.
        var refused: [SessionOrigin: SessionError] = [:]
        /// Each owner's outcome, by identity.
        var outcomes: [ObjectIdentifier: OwnerOutcome] = [:]
    }

    /// Runs one batch; call within the gate. `request` is applied first and the owners see its
    /// result; `extra` claims (from `reconcileOwned`) win over an owner's for the same origin.
    /// With `requestIsOptional` (time brought the request about) the change happens even when
    /// it cannot be saved, unless an owner's claim is a request.
    func reconcileNow(
        _ request: SessionChange, at now: ClockReading, asking: (any SessionOwner)? = nil,
        extra: [SessionOrigin: OwnedSession?] = [:], requestIsOptional: Bool = false, extendedBy: Duration? = nil
    ) async -> Batch {
        let afterRequest = request.applied(to: sessions)
        var asked = owners
        if let asking, !asked.contains(where: { $0 === asking }) { asked.append(asking) }
        var answers: [(owner: any SessionOwner, claims: OwnerClaims)] = []
        for owner in asked {
            let owned = afterRequest.sessions.filter { owner.owns($0.origin) }
            answers.append((owner, await owner.claims(at: now, owned: owned, asked: owner === asking)))
        }
        var claimed = extra
        for answer in answers {
            for (origin, desired) in answer.claims.sessions where extra[origin] == nil { claimed[origin] = desired }
        }
        var change = request
        var batch = Batch()
        for (origin, desired) in claimed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let existing = afterRequest.sessions.filter { $0.origin == origin }
            do throws(SessionError) {
                let owned = try await ownedChange(origin, desired, existing: existing, now: now)
                change.started += owned.started
                change.ended += owned.ended
                change.updated += owned.updated
            } catch {
                batch.refused[origin] = error
            }
        }
        let refused = Set(batch.refused.keys)
        var writes: [StateWrite] = []
        for answer in answers { writes += answer.claims.records(refused.filter { answer.owner.owns($0) }) }
        let optional = requestIsOptional && !answers.contains { $0.claims.isRequest }
        let counting = answers.compactMap(\.claims.counted)
        var saved = true
        do throws(SessionError) {
            try await commit(
                change, at: now, writes: writes, extendedBy: extendedBy, savingIsOptional: optional,
                counted: counting.isEmpty ? nil : CountedApp.union(counting.joined()))
        } catch {
            batch.failure = error
            // Nothing changed; what time did to the owners' own state is saved all the same.
            var fallback: [StateWrite] = []
            for answer in answers {
                fallback += answer.claims.records(Set(answer.claims.sessions.keys).union(refused.filter { answer.owner.owns($0) }))
            }
            do { try store.save(fallback) } catch {
                saved = false
                logger.error("cannot save the session owners' records", metadata: ["error": "\(error)"])
            }
        }
        if batch.failure == nil { logOwned(change, request: request) }
        for answer in answers {
            let outcome = OwnerOutcome(
                now: now, asked: answer.owner === asking, failure: batch.failure,
                refused: batch.refused.filter { answer.owner.owns($0.key) }, saved: saved,
                owned: sessions.sessions.filter { answer.owner.owns($0.origin) })
            batch.outcomes[ObjectIdentifier(answer.owner)] = outcome
            await answer.owner.settle(outcome)
        }
        return batch
    }

    /// The change that makes the session of `origin` match `desired`. Owners decide when their
    /// sessions end, so strictness does not stop them from ending one.
    private func ownedChange(
        _ origin: SessionOrigin, _ desired: OwnedSession?, existing: [Session], now: ClockReading
    ) async throws(SessionError) -> SessionChange {
        var change = SessionChange()
        // An owner ending its session at the moment it was due (its own timer may fire a
        // little before ours) ends it naturally, within the same tolerance as adjustments.
        let isDue = { (session: Session) in session.remaining(at: now) < .milliseconds(500) }
        for session in existing where desired == nil || desired?.profile != session.profile {
            change.ended.append(.init(session: session, reason: isDue(session) ? .expired : .stopped, at: now.wall))
        }
        guard let desired else { return change }
        guard desired.remaining > .zero, desired.remaining <= Duration.seconds(Int64(Int32.max)) else {
            throw .invalidLength(.tooShort)
        }
        if let problem = targetPolicy.problem(with: desired.target) { throw .invalidTarget(problem) }
        guard let expansion = await profiles.expansion(of: desired.profile) else { throw .unknownProfile(desired.profile) }
        if let current = existing.first(where: { $0.profile == desired.profile }) {
            let wantedEnd = now.boot + desired.remaining
            let resumed = current.resumed(at: now)
            let drift = abs((resumed.endBoot - wantedEnd).seconds)
            if drift >= 0.5 || current.strict != desired.strict || current.rules != expansion.rules || current.target != desired.target {
                var adjusted = resumed
                adjusted.endBoot = wantedEnd
                adjusted.checkpointRemaining = desired.remaining
                adjusted.strict = desired.strict
                adjusted.rules = expansion.rules
                adjusted.target = desired.target
                change.updated.append(.init(old: current, new: adjusted))
            }
        } else {
            var session = Session(
                id: makeID(), profile: expansion.profile.name, origin: origin, strict: desired.strict,
                rules: expansion.rules, duration: desired.remaining, now: now, target: desired.target)
            session.friction = friction(for: expansion.profile)
            change.started.append(session)
        }
        return change
    }

    private func logOwned(_ change: SessionChange, request: SessionChange) {
        let requested = Set(request.started.map(\.id) + request.ended.map(\.session.id))
        for ending in change.ended where !requested.contains(ending.session.id) && ending.session.origin != .manual {
            logger.info("session ended by its owner", metadata: metadata(ending.session, ["reason": "\(ending.reason.rawValue)"]))
        }
        for session in change.started where !requested.contains(session.id) {
            logger.info(
                "session started", metadata: metadata(session, ["duration": "\(DurationParser.format(session.checkpointRemaining))"]))
        }
    }
}
