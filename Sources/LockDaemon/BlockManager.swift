import Foundation
import LockCore
import LockEnforcement
import LockNames
import LockProtocol
import LockStore
import Logging

/// Something that wakes the daemon at a boot-clock deadline (a timerfd in production).
public protocol DeadlineTimer: Sendable {
    /// Arms the timer for `deadline`, or disarms it for nil.
    func arm(at deadline: BootTime?)
}

/// The set of active sessions, and everything that changes it.
///
/// Each change follows the same order, so that a crash at any point leaves a state the next
/// start can finish: validate, persist, enforce (undoing the persist if enforcement fails),
/// then publish. Enforcers always receive the whole desired state.
public actor BlockManager {
    private var sessions = SessionSet()
    private var profiles: ProfileStore
    private var configuration: DaemonConfiguration
    private let store: StateStore
    private let enforcers: [any Enforcer]
    private let events: EventBus
    private let clock: @Sendable () -> ClockReading
    private let makeID: @Sendable () -> String
    private let logger: Logger
    private let gate = SerialGate()
    private var timer: (any DeadlineTimer)?
    private var enforcementFailed = false
    private var reloadHooks: [@Sendable () async -> [String]] = []
    private var profileUsers: [@Sendable (String) async -> String?] = []

    /// Creates a manager; call `restore()` before serving requests.
    public init(profiles: ProfileStore, configuration: DaemonConfiguration, store: StateStore,
                enforcers: [any Enforcer], events: EventBus, logger: Logger,
                clock: @escaping @Sendable () -> ClockReading,
                makeID: @escaping @Sendable () -> String = { BlockManager.randomID() }) {
        self.profiles = profiles
        self.configuration = configuration
        self.store = store
        self.enforcers = enforcers
        self.events = events
        self.logger = logger
        self.clock = clock
        self.makeID = makeID
    }

    /// A 12-hex-digit session identifier.
    public static func randomID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12))
    }

    /// Sets the timer used to wake up at the next session end.
    public func setTimer(_ timer: any DeadlineTimer) {
        self.timer = timer
        timer.arm(at: sessions.nextDeadline)
    }

    // MARK: - Start-up and time

    /// Loads the saved sessions, ends those whose time ran out while the daemon was not
    /// running (across a reboot: the checkpoint rule), and enforces the rest. Enforcement
    /// failures are logged and retried at the next checkpoint rather than keeping the daemon
    /// from starting: a running daemon can still report the problem.
    public func restore() async throws {
        try await gate.run {
            let now = clock()
            var restored = SessionSet()
            var ended: [(Session, Date)] = []
            for saved in try store.activeSessions() {
                let resumed = saved.resumed(at: now)
                if resumed.hasEnded(at: now) {
                    ended.append((saved, endDate(of: saved, now: now)))
                } else {
                    restored.insert(resumed)
                }
            }
            for (session, date) in ended {
                try store.recordEnd([session], at: date, reason: .daemonRestart)
                logger.info("session ended while the daemon was not running",
                            metadata: metadata(session, ["reason": "daemon-restart"]))
            }
            try store.save(restored.sessions, at: now)
            sessions = restored
            await enforceOrRecord(restored)
            timer?.arm(at: sessions.nextDeadline)
            for session in restored.sessions {
                logger.info("session resumed", metadata: metadata(session, ["remaining": "\(DurationParser.format(session.remaining(at: now)))"]))
            }
        }
    }

    /// Ends every session whose time is up; called when the deadline timer fires.
    public func expireDue() async {
        await gate.run {
            let now = clock()
            let due = sessions.ended(at: now)
            if !due.isEmpty {
                var next = sessions
                for session in due { next.remove(id: session.id) }
                do {
                    try store.recordEnd(due, at: now.wall, reason: .expired)
                } catch {
                    logger.error("cannot record session end", metadata: ["error": "\(error)"])
                }
                sessions = next
                await enforceOrRecord(next)
                for session in due {
                    logger.info("session expired", metadata: metadata(session))
                    await events.publish(Event(type: .sessionEnded, at: now.wall, message: "\(session.profile) block ended",
                                               profile: session.profile, session: SessionInfo(session, at: now),
                                               reason: EndReason.expired.rawValue))
                }
            }
            timer?.arm(at: sessions.nextDeadline)
        }
    }

    /// Saves every session's remaining time, so a reboot loses at most one interval; retries
    /// enforcement if it failed before.
    public func checkpoint() async {
        await gate.run {
            let now = clock()
            let updated = SessionSet(sessions.sessions.map { $0.checkpointed(at: now) })
            do {
                try store.save(updated.sessions, at: now)
                sessions = updated
            } catch {
                logger.error("cannot save checkpoint", metadata: ["error": "\(error)"])
            }
            if enforcementFailed { await enforceOrRecord(sessions) }
        }
    }

    // MARK: - Sessions

    /// Starts blocking a profile.
    public func start(_ request: StartRequest, origin: SessionOrigin = .manual) async throws(APIError) -> SessionInfo {
        try await gated { () async throws(APIError) -> SessionInfo in
            let now = clock()
            guard let profile = profiles.profile(request.profile) else { throw unknownProfile(request.profile) }
            let duration = try sessionDuration(request, now: now)
            if let running = sessions.sessions.first(where: { $0.profile == profile.name && $0.origin == origin }) {
                throw APIError(.conflict, "\(profile.name) is already blocked until \(clockTime(running.endsAt(at: now))) (\(DurationParser.format(running.remaining(at: now))) left); use `lockctl extend \(profile.name) DURATION` to lengthen it")
            }
            let session = Session(id: makeID(), profile: profile.name, origin: origin, strict: request.strict ?? profile.strict,
                                  rules: profiles.rules(for: profile), duration: duration, now: now)
            var next = sessions
            next.insert(session)
            do { try store.recordStart(session, at: now) } catch {
                throw APIError(.internalError, "cannot save the session: \(error)")
            }
            do {
                try await enforce(next)
            } catch {
                try? store.forget(session)
                throw APIError(.internalError, "cannot enforce the block, nothing was changed: \(error)")
            }
            sessions = next
            timer?.arm(at: sessions.nextDeadline)
            let info = SessionInfo(session, at: now)
            logger.info("session started", metadata: metadata(session, ["duration": "\(DurationParser.format(duration))"]))
            await events.publish(Event(type: .sessionStarted, at: now.wall,
                                       message: "\(session.profile) blocked for \(DurationParser.format(duration))",
                                       profile: session.profile, session: info))
            return info
        }
    }

    /// Stops the sessions a reference names (an id, or a profile's sessions). Refused when
    /// any of them is strict.
    public func stop(_ reference: String, origins: Set<SessionOrigin>? = nil) async throws(APIError) -> [SessionInfo] {
        try await gated { () async throws(APIError) -> [SessionInfo] in
            let now = clock()
            var matching = sessions.sessions(matching: reference).filter { origins?.contains($0.origin) ?? true }
            guard !matching.isEmpty else { throw noSession(reference) }
            if origins == nil {
                // The Pomodoro timer owns its sessions; a profile name stops the others and
                // leaves the timer's alone, and only a reference to nothing else is refused.
                let owned = matching.filter { $0.origin == .pomodoro }
                matching.removeAll { $0.origin == .pomodoro }
                if matching.isEmpty, let session = owned.first {
                    throw APIError(.refused, "\(session.profile) is blocked by the Pomodoro timer; use `lockctl pomodoro stop` (session \(session.id))")
                }
            }
            if let strict = matching.first(where: \.strict) {
                throw APIError(.refused, "\(strict.profile) is a strict block: it cannot be stopped before it ends at \(clockTime(strict.endsAt(at: now))) (\(DurationParser.format(strict.remaining(at: now))) left)")
            }
            var next = sessions
            for session in matching { next.remove(id: session.id) }
            do { try store.recordEnd(matching, at: now.wall, reason: .stopped) } catch {
                throw APIError(.internalError, "cannot save the change: \(error)")
            }
            sessions = next
            timer?.arm(at: sessions.nextDeadline)
            do { try await enforce(next) } catch {
                enforcementFailed = true
                throw APIError(.internalError, "stopped, but enforcement could not be updated yet (will retry): \(error)")
            }
            var infos: [SessionInfo] = []
            for session in matching {
                let info = SessionInfo(session, at: now)
                infos.append(info)
                logger.info("session stopped", metadata: metadata(session))
                await events.publish(Event(type: .sessionEnded, at: now.wall, message: "\(session.profile) block stopped",
                                           profile: session.profile, session: info, reason: EndReason.stopped.rawValue))
            }
            return infos
        }
    }

    /// Lengthens a manual session (an id, or the manual session of a profile).
    public func extend(_ reference: String, by seconds: Double) async throws(APIError) -> SessionInfo {
        try await gated { () async throws(APIError) -> SessionInfo in
            let now = clock()
            guard seconds.isFinite, seconds >= 1 else {
                throw APIError(.invalidArgument, "seconds: an extension must be at least 1s (sessions can only be lengthened)")
            }
            let matching = sessions.sessions(matching: reference)
            guard !matching.isEmpty else { throw noSession(reference) }
            guard let session = matching.first(where: { $0.origin == .manual }) else {
                throw APIError(.refused, "\(reference) was started by \(matching[0].origin); only manual sessions can be extended")
            }
            let extended = session.extended(by: .seconds(seconds), at: now)
            guard extended.remaining(at: now) <= configuration.maxSession else {
                throw APIError(.invalidArgument, "seconds: the session would last longer than the \(DurationParser.format(configuration.maxSession)) limit")
            }
            do { try store.save([extended], at: now) } catch {
                throw APIError(.internalError, "cannot save the change: \(error)")
            }
            sessions.update(extended)
            timer?.arm(at: sessions.nextDeadline)
            let info = SessionInfo(extended, at: now)
            logger.info("session extended", metadata: metadata(extended, ["by": "\(DurationParser.format(.seconds(seconds)))"]))
            await events.publish(Event(type: .sessionExtended, at: now.wall,
                                       message: "\(extended.profile) extended by \(DurationParser.format(.seconds(seconds)))",
                                       profile: extended.profile, session: info))
            return info
        }
    }

    /// Makes the one session owned by `origin` (a schedule or the Pomodoro timer) match
    /// `desired`: started if missing, adjusted in place if its profile is the same (its end
    /// moves, nothing is lifted in between), replaced if the profile changed, ended for nil.
    /// Owners decide when their sessions end, so strictness does not stop them from ending it.
    /// Returns the session now in force, if any.
    @discardableResult
    public func reconcileOwned(_ origin: SessionOrigin, _ desired: OwnedSession?) async throws(APIError) -> Session? {
        precondition(origin != .manual, "manual sessions are not owned")
        return try await gated { () async throws(APIError) -> Session? in
            let now = clock()
            let existing = sessions.sessions.filter { $0.origin == origin }
            var next = sessions
            var ended: [Session] = []
            var started: Session?
            var adjusted: Session?
            for session in existing where desired == nil || desired?.profile != session.profile {
                next.remove(id: session.id)
                ended.append(session)
            }
            if let desired {
                guard desired.remaining > .zero else { throw APIError(.invalidArgument, "remaining: must be positive") }
                guard let profile = profiles.profile(desired.profile) else { throw unknownProfile(desired.profile) }
                let rules = profiles.rules(for: profile)
                if var current = existing.first(where: { $0.profile == desired.profile }) {
                    let wantedEnd = now.boot + desired.remaining
                    let drift = abs((current.resumed(at: now).endBoot - wantedEnd).seconds)
                    if drift >= 0.5 || current.strict != desired.strict || current.rules != rules {
                        current = current.resumed(at: now)
                        current.endBoot = wantedEnd
                        current.checkpointRemaining = desired.remaining
                        current.strict = desired.strict
                        current.rules = rules
                        next.update(current)
                        adjusted = current
                    }
                } else {
                    let session = Session(id: makeID(), profile: profile.name, origin: origin, strict: desired.strict,
                                          rules: rules, duration: desired.remaining, now: now)
                    next.insert(session)
                    started = session
                }
            }
            guard !ended.isEmpty || started != nil || adjusted != nil else { return existing.first }
            // An owner ending its session at the moment it was due (its own timer may fire a
            // little before ours) ends it naturally, within the same tolerance as adjustments.
            let isDue = { (session: Session) in session.remaining(at: now) < .milliseconds(500) }
            do {
                let (expired, stopped) = (ended.filter(isDue), ended.filter { !isDue($0) })
                try store.recordEnd(expired, at: now.wall, reason: .expired)
                try store.recordEnd(stopped, at: now.wall, reason: .stopped)
                if let started { try store.recordStart(started, at: now) }
                if let adjusted { try store.save([adjusted], at: now) }
            } catch {
                throw APIError(.internalError, "cannot save the change: \(error)")
            }
            sessions = next
            timer?.arm(at: sessions.nextDeadline)
            do { try await enforce(next) } catch {
                enforcementFailed = true
                logger.error("enforcement failed; will retry", metadata: ["origin": "\(origin)", "error": "\(error)"])
            }
            for session in ended {
                let reason = isDue(session) ? EndReason.expired : .stopped
                logger.info("session ended by its owner", metadata: metadata(session, ["reason": "\(reason.rawValue)"]))
                await events.publish(Event(type: .sessionEnded, at: now.wall, message: "\(session.profile) block ended (\(origin))",
                                           profile: session.profile, session: SessionInfo(session, at: now), reason: reason.rawValue))
            }
            if let started {
                logger.info("session started", metadata: metadata(started, ["duration": "\(DurationParser.format(desired?.remaining ?? .zero))"]))
                await events.publish(Event(type: .sessionStarted, at: now.wall,
                                           message: "\(started.profile) blocked by \(origin) for \(DurationParser.format(desired?.remaining ?? .zero))",
                                           profile: started.profile, session: SessionInfo(started, at: now)))
            }
            return started ?? adjusted ?? next.sessions.first { $0.origin == origin }
        }
    }

    /// The current status.
    public func status(notices: [String] = []) async -> StatusResponse {
        let now = clock()
        var reports: [EnforcerReport] = []
        for enforcer in enforcers { reports.append(await enforcer.report()) }
        let infos = sessions.sessions.sorted { $0.endBoot < $1.endBoot }.map { SessionInfo($0, at: now) }
        return StatusResponse(version: API.softwareVersion, now: now.wall, sessions: infos,
                              blockedNames: sessions.desiredBlock.domains.count, enforcers: reports, notices: notices)
    }

    /// Which sessions block a name.
    public func check(_ input: String) throws(APIError) -> CheckResponse {
        let name: DomainName
        do { name = try profiles.names.lookupName(input) } catch { throw APIError(.invalidArgument, "name: \(error)") }
        let matches = sessions.blockers(of: name.value).map {
            CheckResponse.Match(profile: $0.session.profile, session: $0.session.id, origin: $0.session.origin.rawValue, rule: $0.rule)
        }
        return CheckResponse(name: name.value, matches: matches)
    }

    /// The most recent sessions.
    public func history(limit: Int) throws(APIError) -> HistoryResponse {
        do { return HistoryResponse(entries: try store.history(limit: max(1, min(limit, 10_000)))) } catch {
            throw APIError(.internalError, "cannot read the history: \(error)")
        }
    }

    /// The one-line status for `systemctl status`: `2 blocks active: deep-work 31m left, …`.
    public func serviceStatusText() -> String {
        let now = clock()
        return ServiceStatusText.format(sessions.sessions.map { ($0.profile, $0.remaining(at: now)) })
    }

    /// The daemon's own checks for `lockctl doctor`.
    public func doctor(paths: Paths) async -> DoctorReport {
        var reports: [EnforcerReport] = []
        for enforcer in enforcers { reports.append(await enforcer.report()) }
        let desired = sessions.desiredBlock
        let hosts = enforcers.compactMap { $0 as? HostsFileEnforcer }.first
        let diagnostics = Diagnostics(paths: paths, desired: desired, hostsNames: hosts?.names(for: desired) ?? desired.domains,
                                      reports: reports,
                                      configuredEnforcers: enforcers.map(\.name),
                                      fileProblems: profiles.problems.map(\.description),
                                      firewallUnavailable: enforcers.contains { $0.name == "nftables" } ? nil
                                          : EnforcerFactory.firewallUnavailable())
        return DoctorReport(checks: diagnostics.run())
    }

    /// The active sessions (for other parts of the daemon).
    public var activeSessions: [Session] { sessions.sessions }

    /// The configuration in force (the last good one after reloads), for other parts of the daemon.
    public var currentConfiguration: DaemonConfiguration { configuration }

    // MARK: - Profiles

    /// Every profile, with the problems of files that could not be loaded.
    public func listProfiles() -> ProfileList {
        ProfileList(profiles: profiles.sorted.map { ProfileInfo($0, rules: profiles.rules(for: $0), includeExpansion: false) },
                    problems: profiles.problems.map(\.description))
    }

    /// One profile with its expansion.
    public func profile(_ name: String) throws(APIError) -> ProfileInfo {
        guard let profile = profiles.profile(name) else { throw unknownProfile(name) }
        return ProfileInfo(profile, rules: profiles.rules(for: profile), includeExpansion: true)
    }

    /// Creates a custom profile.
    public func createProfile(_ request: CreateProfileRequest) async throws(APIError) -> ProfileInfo {
        try await gated { () async throws(APIError) -> ProfileInfo in
            do throws(FieldError) { try Profile.validateName(request.name) } catch { throw APIError(.invalidArgument, error.description) }
            var mode = ProfileMode.blocklist
            if let text = request.mode {
                guard let parsed = ProfileMode(rawValue: text) else {
                    throw APIError(.invalidArgument, "mode: \"\(text)\" is not a mode (blocklist or allowlist)")
                }
                mode = parsed
            }
            let profile = Profile(name: request.name, displayName: request.displayName, description: request.description,
                                  icon: request.icon, color: request.color, domains: try parseDomains(request.domains, field: "domains"),
                                  services: request.services, categories: request.categories,
                                  allow: try parseDomains(request.allow, field: "allow"),
                                  addresses: try parseNetworks(request.addresses ?? [], field: "addresses"), mode: mode,
                                  strict: request.strict, kind: .custom)
            do throws(ProfileStore.Failure) { try profiles.create(profile) } catch { throw apiError(error) }
            logger.info("profile created", metadata: ["profile": "\(profile.name)"])
            await events.publish(Event(type: .profilesChanged, at: clock().wall, message: "profile \(profile.name) created",
                                       profile: profile.name))
            return ProfileInfo(profile, rules: profiles.rules(for: profile), includeExpansion: true)
        }
    }

    /// Changes a custom profile. Sessions of it that are running pick the change up at once
    /// (the hosts file is rewritten in place, so nothing is lifted in between); strict ones
    /// only gain rules, they never lose any before they end.
    public func updateProfile(_ name: String, _ request: UpdateProfileRequest) async throws(APIError) -> ProfileInfo {
        try await gated { () async throws(APIError) -> ProfileInfo in
            let add = try parseDomains(request.addDomains ?? [], field: "add-domain")
            let remove = try parseDomains(request.removeDomains ?? [], field: "remove-domain")
            let addAllow = try parseDomains(request.addAllow ?? [], field: "allow")
            let removeAllow = try parseDomains(request.removeAllow ?? [], field: "allow")
            let addAddresses = try parseNetworks(request.addAddresses ?? [], field: "add-address")
            let removeAddresses = try parseNetworks(request.removeAddresses ?? [], field: "remove-address")
            if let current = profiles.profile(name) {
                if let missing = remove.first(where: { !current.domains.contains($0) }) {
                    throw APIError(.notFound, "remove-domain: \(missing) is not in profile \(name)")
                }
                if let missing = removeAddresses.first(where: { !current.addresses.contains($0) }) {
                    throw APIError(.notFound, "remove-address: \(missing) is not in profile \(name)")
                }
                if let missing = (request.removeServices ?? []).first(where: { !current.services.contains($0) }) {
                    throw APIError(.notFound, "remove-service: \(missing) is not in profile \(name)")
                }
            }
            let updated: Profile
            do throws(ProfileStore.Failure) {
                updated = try profiles.update(name) { (profile: inout Profile) throws(FieldError) in
                    profile.domains = profile.domains.filter { !remove.contains($0) } + add
                    profile.services = profile.services.filter { !(request.removeServices ?? []).contains($0) } + (request.addServices ?? [])
                    profile.allow = profile.allow.filter { !removeAllow.contains($0) } + addAllow
                    profile.addresses = profile.addresses.filter { !removeAddresses.contains($0) } + addAddresses
                    if let displayName = request.displayName { profile.displayName = displayName.isEmpty ? nil : displayName }
                    if let description = request.description { profile.description = description.isEmpty ? nil : description }
                    if let strict = request.strict { profile.strict = strict }
                }
            } catch { throw apiError(error) }
            try await applyProfileChange(updated)
            logger.info("profile updated", metadata: ["profile": "\(name)"])
            await events.publish(Event(type: .profilesChanged, at: clock().wall, message: "profile \(name) changed", profile: name))
            return ProfileInfo(updated, rules: profiles.rules(for: updated), includeExpansion: true)
        }
    }

    /// Deletes a custom profile that nothing is blocking with right now.
    public func deleteProfile(_ name: String) async throws(APIError) {
        try await gated { () async throws(APIError) in
            if let session = sessions.sessions.first(where: { $0.profile == name }) {
                throw APIError(.refused, "profile \(name) is blocking now (session \(session.id), \(session.origin)); it can be deleted once that ends")
            }
            for user in profileUsers {
                if let use = await user(name) {
                    throw APIError(.refused, "profile \(name) is used by \(use); change or remove that first")
                }
            }
            do throws(ProfileStore.Failure) { try profiles.delete(name) } catch { throw apiError(error) }
            logger.info("profile deleted", metadata: ["profile": "\(name)"])
            await events.publish(Event(type: .profilesChanged, at: clock().wall, message: "profile \(name) deleted", profile: name))
        }
    }

    /// Adds a check run before a profile is deleted: it names what still uses the profile (a
    /// schedule, the Pomodoro timer), so that deleting a profile cannot quietly disarm them.
    public func addProfileUser(_ check: @escaping @Sendable (String) async -> String?) {
        profileUsers.append(check)
    }

    /// Adds work to every reload (`lockctl reload`, SIGHUP), such as reading schedule files; it
    /// returns the problems it found. It runs after profiles and configuration are read, while
    /// the reload holds the manager, so it must not wait for a change to the block.
    public func addReloadHook(_ hook: @escaping @Sendable () async -> [String]) {
        reloadHooks.append(hook)
    }

    /// Reads configuration and profile files again. A bad file keeps its last good version.
    public func reload(configurationPath: String) async -> ReloadResponse {
        await gate.run {
            var problems = profiles.reload().map(\.description)
            do throws(FileProblem) { configuration = try DaemonConfiguration.load(configurationPath) } catch {
                problems.append(error.description)
            }
            for hook in reloadHooks { problems += await hook() }
            for profile in profiles.profiles.values where sessions.sessions.contains(where: { $0.profile == profile.name }) {
                try? await applyProfileChange(profile)
            }
            for problem in problems { logger.warning("configuration problem", metadata: ["problem": "\(problem)"]) }
            await events.publish(Event(type: .profilesChanged, at: clock().wall, message: "configuration reloaded"))
            return ReloadResponse(profiles: profiles.profiles.count, problems: problems)
        }
    }

    // MARK: - Helpers

    private func applyProfileChange(_ profile: Profile) async throws(APIError) {
        let now = clock()
        let fresh = profiles.rules(for: profile)
        var next = sessions
        var changed: [Session] = []
        for var session in sessions.sessions where session.profile == profile.name {
            let rules = session.strict ? session.rules.merged(with: fresh) : fresh
            guard rules != session.rules else { continue }
            session.rules = rules
            next.update(session)
            changed.append(session)
        }
        guard !changed.isEmpty else { return }
        do { try store.save(changed, at: now) } catch { throw APIError(.internalError, "cannot save the change: \(error)") }
        sessions = next
        do { try await enforce(next) } catch {
            enforcementFailed = true
            throw APIError(.internalError, "profile saved, but enforcement could not be updated yet (will retry): \(error)")
        }
    }

    private func sessionDuration(_ request: StartRequest, now: ClockReading) throws(APIError) -> Duration {
        let seconds: Double
        switch (request.seconds, request.until) {
        case (let value?, nil): seconds = value
        case (nil, let until?):
            seconds = until.timeIntervalSince(now.wall).rounded()
            guard seconds >= 1 else { throw APIError(.invalidArgument, "until: \(clockTime(until)) is not in the future") }
        default: throw APIError(.invalidArgument, "give exactly one of seconds and until")
        }
        guard seconds.isFinite, seconds >= 1 else { throw APIError(.invalidArgument, "duration: a block must last at least 1s") }
        let duration = Duration.seconds(seconds)
        guard duration <= configuration.maxSession else {
            throw APIError(.invalidArgument, "duration: \(DurationParser.format(duration)) is longer than the \(DurationParser.format(configuration.maxSession)) limit (max_session in simplylockd.toml)")
        }
        return duration
    }

    private func enforce(_ next: SessionSet) async throws {
        let desired = next.desiredBlock
        var done: [any Enforcer] = []
        do {
            for enforcer in enforcers {
                try await enforcer.apply(desired)
                done.append(enforcer)
            }
            enforcementFailed = false
        } catch {
            // Put back what the others already applied: never a half-applied block.
            let previous = sessions.desiredBlock
            for enforcer in done { try? await enforcer.apply(previous) }
            logger.error("enforcement failed", metadata: ["error": "\(error)"])
            throw error
        }
    }

    private func enforceOrRecord(_ next: SessionSet) async {
        let desired = next.desiredBlock
        var failed = false
        for enforcer in enforcers {
            do { try await enforcer.apply(desired) } catch {
                failed = true
                logger.error("enforcement failed", metadata: ["enforcer": "\(enforcer.name)", "error": "\(error)"])
                await events.publish(Event(type: .enforcementFailed, at: clock().wall, message: "\(enforcer.name): \(error)"))
            }
        }
        enforcementFailed = failed
    }

    private func gated<T>(_ body: () async throws(APIError) -> T) async throws(APIError) -> T {
        do { return try await gate.run(body) } catch let error as APIError { throw error } catch {
            throw APIError(.internalError, "\(error)")
        }
    }

    private func endDate(of session: Session, now: ClockReading) -> Date {
        if session.bootID == now.bootID { return now.wall.addingTimeInterval((session.endBoot - now.boot).seconds) }
        return session.checkpointWall.addingTimeInterval(session.checkpointRemaining.seconds)
    }

    private func parseDomains(_ values: [String], field: String) throws(APIError) -> [DomainName] {
        var result: [DomainName] = []
        for value in values {
            do { result.append(try profiles.names.parse(value)) } catch { throw APIError(.invalidArgument, "\(field): \(error)") }
        }
        return result
    }

    private func parseNetworks(_ values: [String], field: String) throws(APIError) -> [IPNetwork] {
        var result: [IPNetwork] = []
        for value in values {
            do { result.append(try IPNetwork(parsing: value)) } catch { throw APIError(.invalidArgument, "\(field): \(error)") }
        }
        return result
    }

    private func apiError(_ failure: ProfileStore.Failure) -> APIError {
        switch failure {
        case .notFound(let name): unknownProfile(name)
        case .exists(let name): APIError(.conflict, "profile \(name) already exists")
        case .system(let name): APIError(.refused, "\(name) is a system profile and cannot be changed or deleted; create a custom profile instead")
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .io(let message): APIError(.internalError, message)
        }
    }

    private func unknownProfile(_ name: String) -> APIError {
        APIError(.notFound, "no profile named \"\(name)\" (see `lockctl profiles list`)")
    }

    private func noSession(_ reference: String) -> APIError {
        APIError(.notFound, "no active session for \"\(reference)\" (see `lockctl status`)")
    }

    private func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = Calendar.current.isDate(date, inSameDayAs: Date()) ? "HH:mm" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    private func metadata(_ session: Session, _ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var result: Logger.Metadata = ["profile": "\(session.profile)", "session": "\(session.id)", "origin": "\(session.origin)"]
        result.merge(extra) { _, new in new }
        return result
    }
}
