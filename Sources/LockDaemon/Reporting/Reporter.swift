import Foundation
import LockCore
import LockEnforcement
import LockPlatform
import LockStore

/// Answers the questions about the daemon's state: what is blocked, by what, what happened
/// before, and what is wrong (`lockctl doctor`).
public struct Reporter: Sendable {
    let sessions: SessionService
    let enforcement: Enforcement
    let scheduler: Scheduler
    let pomodoro: PomodoroEngine
    let profiles: ProfileService
    let apps: AppCatalogService
    let coordinator: Coordinator
    let lists: ListService
    let store: StateStore
    let paths: Paths
    /// Why the firewall cannot be used here, when it is not configured.
    let firewallUnavailable: @Sendable () -> String?
    /// Why the connection check cannot run here, when it is not configured.
    var connectionCheckUnavailable: @Sendable () -> String? = { nil }
    let clock: @Sendable () -> ClockReading
    /// How the daemon was started, for doctor's fixes.
    var launch = DaemonLaunch()
    /// The zone times are written in.
    var zone: @Sendable () -> TimeZone = { .current }

    /// What is blocked now, by which sessions, and how each enforcer is doing.
    public func status() async -> StatusSnapshot {
        let now = clock()
        let active = await sessions.active.sorted { $0.endBoot < $1.endBoot }
        let desired = await sessions.desiredBlock
        var notices = await scheduler.notices() + (await pomodoro.notices())
        let caches = enforcement.caches?.report
        if let caches, !caches.failures.isEmpty {
            notices.append("resolver caches not flushed at the last change: " + caches.failures.joined(separator: "; "))
        }
        let statuses = await enforcement.statuses()
        if let capped = statuses.first(where: { $0.name == "hosts" })?.details["capped"] {
            notices.append("hosts file \(capped)")
        }
        let appsNotInForce = desired.apps.isEmpty ? nil : Self.appsNotInForce(statuses)
        if let appsNotInForce { notices.append(appsNotInForce) }
        if !desired.counted.isEmpty, let openLimits = Self.openLimitsNotInForce(statuses) { notices.append(openLimits) }
        var snapshot = StatusSnapshot(
            now: now, sessions: active, blockedNames: desired.domains.count, enforcers: statuses,
            notices: notices, caches: caches)
        snapshot.lanNotInForce = Self.lanNotInForce(statuses)
        snapshot.appsNotInForce = appsNotInForce
        return snapshot
    }

    /// Why blocks aimed at the LAN are saved but not yet in force (the LAN's DNS server does
    /// not take them: Unbound down, dnsmasq not running), or nil when they are.
    public func lanNotInForce() async -> String? {
        var statuses: [EnforcerStatus] = []
        for enforcer in enforcement.enforcers where Self.lanEnforcers.contains(enforcer.name) { statuses.append(await enforcer.status()) }
        return Self.lanNotInForce(statuses)
    }

    /// Why apps a block names are not blocked (no app enforcer, or every one failed), or nil
    /// when one keeps them: saying an app is blocked is a promise only an enforcer in force keeps.
    public func appsNotInForce() async -> String? {
        var statuses: [EnforcerStatus] = []
        for enforcer in enforcement.enforcers where Self.appEnforcers.contains(enforcer.name) { statuses.append(await enforcer.status()) }
        return Self.appsNotInForce(statuses)
    }

    static func appsNotInForce(_ statuses: [EnforcerStatus]) -> String? {
        let running = statuses.filter { Self.appEnforcers.contains($0.name) }
        if running.isEmpty { return "apps are NOT blocked: no app enforcer is running" }
        guard !running.contains(where: \.applied) else { return nil }
        let errors = running.compactMap { status in status.lastError.map { "\(status.name): \($0)" } }
        return "apps are NOT blocked: the app enforcers failed" + (errors.isEmpty ? "" : ": " + errors.joined(separator: "; "))
    }

    /// Why the launches open limits count are not counted, or nil when they are: only the
    /// apps enforcer's fanotify guard counts them (it reports the apps it counts).
    static func openLimitsNotInForce(_ statuses: [EnforcerStatus]) -> String? {
        guard let apps = statuses.first(where: { $0.name == "apps" }) else {
            return "open limits are NOT enforced: the apps enforcer is not running"
        }
        if apps.details["counted"] != nil, apps.details["mode"]?.description == "fanotify" { return nil }
        if let mode = apps.details["mode"]?.description, mode == "proc-connector" {
            return "open limits are NOT enforced: the proc connector cannot refuse launches (they need fanotify)"
        }
        return "open limits are NOT enforced: the apps enforcer does not count launches"
            + (apps.lastError.map { ": \($0)" } ?? apps.details["notes"].map { ": \($0)" } ?? "")
    }

    static func lanNotInForce(_ statuses: [EnforcerStatus]) -> String? {
        statuses.first { lanEnforcers.contains($0.name) && $0.lastError != nil }.map { "\($0.name): \($0.lastError ?? "")" }
    }

    /// The enforcers that keep blocked apps from running (fanotify, the BPF LSM guard).
    static let appEnforcers = Set(EnforcerKind.all.filter { $0.covers.contains(.apps) }.map(\.name))

    /// The enforcers that block for other devices through the LAN's DNS server.
    static let lanEnforcers = Set(EnforcerKind.all.filter { $0.covers.contains(.lanTargets) }.map(\.name))

    /// Which sessions block `name` (with the rule, and the imported list it comes from), and
    /// whether each enforcer really keeps it from being reached now. `name` is normalised; with
    /// `trailingDot` the enforcers are asked about the form with a trailing dot, as typed. For a
    /// `target` other than this machine, the sessions aimed there count, and the LAN's DNS
    /// server (the unbound or dnsmasq enforcer) is what answers.
    public func check(_ name: DomainName, target: String = BlockTarget.localName, trailingDot: Bool = false) async -> CheckResult {
        let resolver = lists.library.resolver
        let matches = SessionSet(await sessions.active).blockers(of: name.value, target: target, lists: resolver)
        var coverage: [(enforcer: String, coverage: Coverage)] = []
        for enforcer in enforcement.enforcers {
            if target == BlockTarget.localName {
                if let answer = await enforcer.coverage(of: name.value + (trailingDot ? "." : "")) {
                    coverage.append((enforcer.name, answer))
                }
            } else if Self.lanEnforcers.contains(enforcer.name) {
                let problem = await enforcer.status().lastError
                let answer: Coverage =
                    if matches.isEmpty { .doesNotCover("no block for \(target) covers it") } else if let problem {
                        .doesNotCover("the DNS server has not taken the block: \(problem)")
                    } else { .blocks("answered as blocked by the DNS server for \(target)") }
                coverage.append((enforcer.name, answer))
            }
        }
        return CheckResult(name: name.value, matches: matches, enforcers: coverage)
    }

    /// Which sessions block the app `name` names (a desktop id, flatpak id, snap name, display
    /// name or path), each with the id of the blocked app that matches. An app no longer
    /// installed is still found in the sessions that block it by its id.
    ///
    /// Each enforcer that handles apps says whether it stops the app now. A path is answered
    /// from the catalog and the sessions only, never by looking at the file: the daemon runs as
    /// root, and any user may ask (whether a file exists in a directory they cannot read is
    /// not theirs to learn).
    ///
    /// - Throws: `AppLookupError` when neither the catalog nor any session knows the name.
    public func checkApp(_ name: String) async throws(AppLookupError) -> AppCheck {
        let active = SessionSet(await sessions.active)
        let app: InstalledApp
        do throws(AppLookupError) {
            if name.hasPrefix("/") {
                let catalog = await apps.current()
                guard let known = catalog.apps.first(where: { $0.executables.contains { $0.path == name || $0.resolved == name } })
                else { throw .unknown(name: name, suggestions: []) }
                app = known
            } else {
                app = try await apps.lookup(name)
            }
        } catch {
            let executables = name.hasPrefix("/") ? [name] : []
            let blockers = active.blockers(ofApp: name, executables: executables)
            guard !blockers.isEmpty else { throw error }
            return AppCheck(
                id: name, name: nil, blockers: blockers,
                enforcers: await appCoverage(ids: Set(blockers.map(\.rule)), executables: executables))
        }
        let executables = app.executables.flatMap { [$0.path, $0.resolved] }
        let blockers = active.blockers(ofApp: app.id, executables: executables)
        return AppCheck(
            id: app.id, name: app.name, blockers: blockers,
            enforcers: await appCoverage(ids: Set([app.id] + blockers.map(\.rule)), executables: executables))
    }

    /// The answers of the enforcers that handle apps, for any of `ids` (the app's own, and the
    /// blocked apps of the sessions that match it).
    private func appCoverage(ids: Set<String>, executables: [String]) async -> [(enforcer: String, coverage: Coverage)] {
        var answers: [(enforcer: String, coverage: Coverage)] = []
        for enforcer in enforcement.enforcers {
            var best: Coverage?
            for id in ids.sorted() {
                guard let answer = await enforcer.appCoverage(id: id, executables: executables) else { break }
                if best == nil || (answer.blocks && best?.blocks != true) { best = answer }
            }
            if let best { answers.append((enforcer.name, best)) }
        }
        return answers
    }

    /// The most recent sessions, newest first.
    public func history(limit: Int) throws(ReportError) -> [HistoryRecord] {
        do { return try store.history(limit: limit) } catch { throw .storage(StorageFailure(error)) }
    }

    /// The daemon's own checks, for `lockctl doctor`.
    public func doctor() async -> [Finding] {
        let configured = enforcement.enforcers.map(\.name)
        var fileProblems = (await coordinator.currentConfigurationProblems).map(\.description)
        fileProblems += (await profiles.problems).map(\.description)
        fileProblems += (await scheduler.fileProblems).map(\.description)
        fileProblems += (await lists.problems).map(\.description)
        var missingLists: [String: [String]] = [:]
        for expansion in await profiles.all() {
            for list in expansion.profile.lists where lists.library.current(list) == nil {
                missingLists[list, default: []].append(expansion.profile.name)
            }
        }
        let diagnostics = Diagnostics(
            paths: paths, statuses: await enforcement.statuses(),
            configuredEnforcers: configured, fileProblems: fileProblems,
            scopes: enforcement.enforcers.map { ($0.name, $0.scope) },
            importedLists: lists.all().count, missingLists: missingLists,
            firewallUnavailable: configured.contains("nftables") ? nil : firewallUnavailable(),
            connectionCheckUnavailable: configured.contains("connections") ? nil : connectionCheckUnavailable(),
            stateReadOnly: store.readOnlyReason, now: clock(), launch: launch)
        return await enforcement.findings() + diagnostics.run()
    }

    /// The one-line status for `systemctl status`: `2 blocks active: deep-work until 12:30, …`.
    public func serviceStatusText() async -> String {
        let now = clock()
        return ServiceStatusText.format(await sessions.active.map { ($0.profile, $0.remaining(at: now)) }, now: now.wall, zone: zone())
    }
}

/// What `status` reports.
public struct StatusSnapshot: Sendable {
    /// When it was taken.
    public var now: ClockReading
    /// Active sessions, earliest end first.
    public var sessions: [Session]
    /// Names the hosts section and firewall hold for the union of the sessions.
    public var blockedNames: Int
    /// Each enforcer, in order.
    public var enforcers: [EnforcerStatus]
    /// Lines worth showing with the status (`mornings starts in 4m`).
    public var notices: [String]
    /// The last flush of the machine's resolver caches, when the daemon flushes them.
    var caches: ResolverCacheFlusher.Report?
    /// Why blocks aimed at the LAN are not yet in force, when they are not.
    public var lanNotInForce: String?
    /// Why the apps blocks name are not blocked, when they name some and are not.
    public var appsNotInForce: String?
}

/// What `check` found.
public struct CheckResult: Sendable {
    /// The name asked about, normalised.
    public var name: String
    /// The sessions whose rules block it, with the rule and the imported list it comes from.
    public var matches: [(session: Session, rule: String, list: String?)]
    /// Each enforcer that handles names, and whether it keeps the name from being reached now.
    public var enforcers: [(enforcer: String, coverage: Coverage)]

    /// True only when at least one enforcer in force blocks it.
    public var blocked: Bool { enforcers.contains { $0.coverage.blocks } }
}

/// What `check --app` found.
public struct AppCheck: Sendable {
    /// The app's id.
    public var id: String
    /// Its display name, when it is installed.
    public var name: String?
    /// The sessions blocking it, each with the id of the blocked app that matches.
    public var blockers: [(session: Session, rule: String)]
    /// Each enforcer that handles apps, with whether it stops this one now.
    public var enforcers: [(enforcer: String, coverage: Coverage)]
}

/// Why a report could not be made.
public enum ReportError: Error, Equatable, Sendable {
    /// The state database could not be read.
    case storage(StorageFailure)
}
