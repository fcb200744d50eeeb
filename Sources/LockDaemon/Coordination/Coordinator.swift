import Foundation
import LockCore
import LockStore
import Logging

/// Changes that concern several services at once: profile edits that running sessions and
/// schedules must follow, deleting a profile that something may still use, and reloading the
/// configuration. It sits above the services it calls, so none of them needs to know about
/// the others.
public actor Coordinator {
    private let profiles: ProfileService
    private let sessions: SessionService
    private let scheduler: Scheduler
    private let pomodoro: PomodoroEngine
    private let emergency: EmergencyAccess
    private let lists: ListService
    private let events: EventBus
    private let apps: AppCatalogService
    private let paths: Paths
    private let logger: Logger
    private let clock: @Sendable () -> ClockReading
    private let gate = SerialGate()
    private var configuration: DaemonConfiguration
    private var configurationProblems: [FileProblem]
    private var allowances: AllowanceOwner?
    private var retention: RetentionSetting?

    /// Creates the coordinator over services built with `configuration`.
    public init(
        profiles: ProfileService, sessions: SessionService, scheduler: Scheduler, pomodoro: PomodoroEngine,
        emergency: EmergencyAccess, lists: ListService, events: EventBus, apps: AppCatalogService,
        configuration: DaemonConfiguration.Loaded, paths: Paths,
        logger: Logger, clock: @escaping @Sendable () -> ClockReading
    ) {
        self.lists = lists
        self.profiles = profiles
        self.sessions = sessions
        self.scheduler = scheduler
        self.pomodoro = pomodoro
        self.emergency = emergency
        self.events = events
        self.configuration = configuration.configuration
        self.configurationProblems = configuration.problems
        self.apps = apps
        self.paths = paths
        self.logger = logger
        self.clock = clock
    }

    /// The configuration in force (the last one read).
    public var currentConfiguration: DaemonConfiguration { configuration }

    /// Every problem of the configuration file, as of the last read.
    public var currentConfigurationProblems: [FileProblem] { configurationProblems }

    /// Creates a custom profile; schedules waiting for a profile of that name start working.
    public func createProfile(_ profile: Profile) async throws(ProfileError) -> Profile {
        try await gate.run { () async throws(ProfileError) -> Profile in
            try requireImported(profile.lists)
            let created = try await profiles.create(profile)
            events.publish(.profilesChanged(profile: created.name, change: .created, at: clock().wall))
            await scheduler.profilesChanged()
            return created
        }
    }

    /// Changes a custom profile; its running sessions pick the change up at once. While a
    /// strict block of it runs, an edit that would take anything from it (remove a domain,
    /// service or address, add an exception, turn strict off) is refused and changes nothing;
    /// edits that only add apply at once. When the change cannot be enforced, the file is put
    /// back as it was.
    public func updateProfile(_ name: String, _ edit: ProfileEdit) async throws(ProfileError) -> Profile {
        try await gate.run { () async throws(ProfileError) -> Profile in
            try requireImported(edit.addLists)
            if let strict = await sessions.active.first(where: { $0.profile == name && $0.strict }) {
                let preview = try await profiles.preview(name, edit)
                let changes = preview.old.profile.weakenings(to: preview.new.profile, rules: preview.old.rules, newRules: preview.new.rules)
                if !changes.isEmpty {
                    logger.notice(
                        "refused an edit that would weaken a strict block",
                        metadata: ["profile": "\(name)", "session": "\(strict.id)", "changes": "\(changes)"])
                    throw .weakensStrictBlock(strict.resumed(at: clock()), changes: changes)
                }
            }
            let (old, new) = try await profiles.update(name, edit)
            do throws(SessionError) { try await sessions.refreshRules(for: name) } catch {
                try? await profiles.restore(old)
                throw .enforcement("\(error)")
            }
            events.publish(.profilesChanged(profile: name, change: .changed, at: clock().wall))
            await scheduler.profilesChanged()
            await allowances?.profilesChanged()
            return new
        }
    }

    /// Deletes a custom profile that nothing blocks with now and no schedule or Pomodoro run uses.
    public func deleteProfile(_ name: String) async throws(ProfileError) {
        try await gate.run { () async throws(ProfileError) in
            guard await profiles.exists(name) else { throw .notFound(name) }
            if let session = await sessions.active.first(where: { $0.profile == name }) { throw .blocking(session) }
            if let user = await scheduler.users(of: name) { throw .usedBy(profile: name, user: user) }
            if let user = await pomodoro.uses(name) { throw .usedBy(profile: name, user: user) }
            try await profiles.delete(name)
            events.publish(.profilesChanged(profile: name, change: .deleted, at: clock().wall))
            await scheduler.profilesChanged()
        }
    }

    private func requireImported(_ names: [String]) throws(ProfileError) {
        for name in names {
            do throws(FieldError) { try NameRule.validate(name, kind: "list") } catch {
                throw .invalid(FieldError(field: "lists", value: name, reason: error.reason))
            }
            guard lists.library.current(name) != nil else {
                throw .invalid(
                    FieldError(
                        field: "lists", value: name,
                        reason: "no list named \"\(name)\" has been imported (lockctl lists import \(name) FILE)"))
            }
        }
    }

    // MARK: - Imported lists

    /// Makes `list` (received by `ListService.receive`) the current version of its name and
    /// moves the running blocks to it in one commit; strict blocks keep older versions the new
    /// one does not cover. When that cannot be enforced, the previous version stays current and
    /// the new one is dropped. Returns the sessions that changed.
    public func importList(_ list: Blocklist) async throws(ListError) -> [Session] {
        try await gate.run { () async throws(ListError) -> [Session] in
            let name = list.reference.name
            let previous = try await lists.install(list)
            await profiles.listsChanged()
            let library = lists.library
            let reference = list.reference
            let changed: [Session]
            do throws(SessionError) {
                changed = try await sessions.updateLists(name, to: reference) { older in
                    guard let old = library.list(older), let new = library.list(reference) else { return true }
                    return old.isCovered(by: new)
                }
            } catch {
                await lists.uninstall(list, previous: previous)
                await profiles.listsChanged()
                throw .enforcement("\(error)")
            }
            await collectUnusedListsNow()
            return changed
        }
    }

    /// Removes the imported list `name`: running blocks that hold it stop blocking its names
    /// (refused while a strict one holds it), then its files go. Profiles that name it keep
    /// the name (doctor reports it) until they are edited.
    public func removeList(_ name: String) async throws(ListError) {
        try await gate.run { () async throws(ListError) in
            guard lists.library.current(name) != nil || lists.library.references.contains(where: { $0.name == name }) else {
                throw .notFound(name)
            }
            do throws(SessionError) {
                try await sessions.updateLists(name, to: nil) { _ in true }
            } catch {
                if case .strict(let session) = error { throw .usedByStrictBlock(list: name, session: session) }
                throw .enforcement("\(error)")
            }
            try await lists.delete(name)
            await profiles.listsChanged()
        }
    }

    /// Drops the list versions no running block holds any more (after blocks end).
    public func collectUnusedLists() async {
        await gate.run { await collectUnusedListsNow() }
    }

    private func collectUnusedListsNow() async {
        await lists.collectGarbage(keeping: await sessions.heldLists)
    }

    /// Reloads the allowances' files too from now on.
    public func setAllowances(_ owner: AllowanceOwner) { allowances = owner }

    /// Hands `[insights] retention` to the retention loop from now on.
    func setRetention(_ setting: RetentionSetting) { retention = setting }

    /// Reads the configuration, profiles and schedules again (`lockctl reload`, SIGHUP). A bad
    /// file keeps its last good version; every problem is returned. The configuration is read
    /// once, here, and each service is handed its part (no service reads it back).
    public func reload() async -> ReloadOutcome {
        await gate.run {
            let loaded = DaemonConfiguration.load(paths.configFile)
            configuration = loaded.configuration
            configurationProblems = loaded.problems
            var problems = loaded.problems.map(\.description)
            await apps.setRoots(AppCatalogService.roots(paths: paths, extraDataDirectories: configuration.apps.dataDirectories))
            problems += await profiles.reload().map(\.description)
            await sessions.setMaxSession(configuration.maxSession)
            await sessions.setFrictionDefaults(configuration.friction)
            // The enforcers stay those the daemon started with; the device groups follow the file.
            let running = await sessions.targetPolicy
            await sessions.setTargetPolicy(
                TargetPolicy(
                    groups: configuration.lan.groups, reach: running.reach, configFile: paths.configFile, heldBack: running.heldBack))
            await pomodoro.setDefaults(configuration.pomodoro)
            await emergency.setFriction(configuration.friction)
            await retention?.set(configuration.attemptRetention)
            problems += await scheduler.reloadFiles(defaultWarning: configuration.scheduleWarning).map(\.description)
            problems += await allowances?.reload().map(\.description) ?? []
            problems += await sessions.refreshAllRules().map { "cannot apply the changed profile \($0); retried at each checkpoint" }
            await scheduler.profilesChanged()
            for problem in problems { logger.warning("configuration problem", metadata: ["problem": "\(problem)"]) }
            events.publish(.profilesChanged(profile: nil, change: .reloaded, at: clock().wall))
            return ReloadOutcome(profiles: await profiles.count, problems: problems)
        }
    }
}

/// What a reload found.
public struct ReloadOutcome: Sendable, Equatable {
    /// Profiles known now.
    public var profiles: Int
    /// Every problem, `file:line: field: reason`.
    public var problems: [String]
}
