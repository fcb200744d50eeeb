import Foundation
import LockCore
import LockEnforcement
import LockPlatform
import LockProtocol
import LockStore

// Domain values as the API sends them. The wire types live in LockProtocol; these
// initialisers are the edge's, so no domain service has to know them.

extension StatusResponse {
    init(_ snapshot: StatusSnapshot) {
        self.init(
            version: API.softwareVersion, now: snapshot.now.wall,
            sessions: snapshot.sessions.map {
                SessionInfo($0, at: snapshot.now, lanNotInForce: snapshot.lanNotInForce, appsNotInForce: snapshot.appsNotInForce)
            },
            blockedNames: snapshot.blockedNames, enforcers: snapshot.enforcers.map(EnforcerReport.init),
            notices: snapshot.notices,
            resolverCaches: snapshot.caches.map {
                ResolverCacheReport(at: $0.at, flushed: $0.flushed, notRunning: $0.notRunning, failures: $0.failures)
            })
    }
}

extension SessionInfo {
    /// The wire form of `session`, saying it is not yet in force when it is aimed at the LAN and
    /// the LAN's DNS server does not take it (`lanNotInForce`: why), and that its apps are not
    /// blocked when it names some and no app enforcer keeps them (`appsNotInForce`: why).
    init(_ session: Session, at now: ClockReading, lanNotInForce: String?, appsNotInForce: String?) {
        self.init(session, at: now)
        if let lanNotInForce, !session.target.lanTargets.isEmpty {
            notInForce = "saved, not yet in force for \(session.target.lanTargets.joined(separator: ", ")): \(lanNotInForce)"
        }
        if let appsNotInForce, !session.rules.apps.isEmpty { appsNotBlocked = appsNotInForce }
    }
}

extension CheckResponse {
    init(_ result: CheckResult) {
        self.init(
            name: result.name,
            matches: result.matches.map {
                Match(profile: $0.session.profile, session: $0.session.id, origin: $0.session.origin.rawValue, rule: $0.rule, list: $0.list)
            }, enforcers: result.enforcers.map { EnforcerAnswer(name: $0.enforcer, blocks: $0.coverage.blocks, detail: $0.coverage.detail) }
        )
    }
}

extension ListInfo {
    /// The wire form of `list`, with the profiles that name it and the sessions that hold it.
    init(_ list: Blocklist, profiles: [String], sessions: [Session]) {
        let report = list.info.report
        let skipped = report.skipped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
            .map { reason, count in
                Skipped(
                    reason: reason.rawValue, explanation: reason.explanation, count: count,
                    examples: (report.examples[reason] ?? []).map { Skipped.Example(line: $0.line, text: $0.text) })
            }
        let holders = sessions.flatMap { session in
            session.rules.lists.filter { $0.name == list.reference.name }.map {
                Holder(session: session.id, profile: session.profile, version: $0.version, strict: session.strict)
            }
        }
        self.init(
            name: list.reference.name, version: list.reference.version, source: list.info.source,
            importedAt: list.info.importedAt, names: list.block.count, exceptions: list.allow.count, lines: report.lines,
            comments: report.comments, skipped: report.skippedTotal, skippedByReason: skipped,
            bytes: list.block.allocatedBytes + list.allow.allocatedBytes, profiles: profiles, heldBy: holders)
    }
}

extension EnforcerReport {
    init(_ status: EnforcerStatus) {
        self.init(
            name: status.name, applied: status.applied, elements: status.elements, lastApplied: status.lastApplied,
            lastError: status.lastError,
            details: status.details.mapValues { detail in
                switch detail {
                case .count(let count): .number(Double(count))
                case .seconds(let seconds): .number(seconds)
                case .text(let text): .text(text)
                case .time(let date): .text(Timestamp.format(date))
                }
            }, state: status.health.word, problem: status.health.reason)
    }
}

extension HistoryEntry {
    init(_ record: HistoryRecord) {
        self.init(
            session: record.session, profile: record.profile, origin: record.origin, strict: record.strict,
            startedAt: record.startedAt, plannedEnd: record.plannedEnd, endedAt: record.endedAt,
            endReason: record.endReason?.rawValue)
    }
}

extension PomodoroHistoryResponse {
    init(_ history: FocusHistory) {
        self.init(
            entries: history.records.map {
                PomodoroFocusEntry(
                    run: $0.run, profile: $0.profile, cycle: $0.cycle, cycles: $0.cycles, startedAt: $0.startedAt,
                    endedAt: $0.endedAt, focusedSeconds: $0.focused.seconds)
            }, pomodoros: history.count, focusedSeconds: history.focused.seconds)
    }
}

extension PomodoroInfo {
    init(_ view: PomodoroView?) {
        guard let view else {
            self = .none
            return
        }
        self.init(
            view.status, profile: view.profile, startedAt: view.startedAt, settings: view.settings, session: view.session,
            problem: view.problem)
    }
}

extension ScheduleInfo {
    init(_ view: ScheduleView) {
        self.init(view.schedule, status: view.status, session: view.session, problem: view.problem)
    }
}

extension DoctorCheck {
    init(_ finding: Finding) {
        let state: State =
            switch finding.severity {
            case .ok: .ok
            case .warning: .warning
            case .problem: .problem
            }
        self.init(finding.subject, state, finding.message, fix: finding.fix)
    }
}

extension ProfileInfo {
    init(_ expansion: ProfileExpansion, includeExpansion: Bool) {
        self.init(expansion.profile, rules: expansion.rules, includeExpansion: includeExpansion)
    }
}

extension Event {
    /// The wire form of a domain event.
    init(_ event: DaemonEvent) {
        switch event {
        case .sessionStarted(let session, let now):
            let length = DurationParser.format(session.remaining(at: now))
            let by = session.origin == .manual ? "" : "by \(session.origin) "
            self.init(
                type: .sessionStarted, at: now.wall, message: "\(session.profile) blocked \(by)for \(length)",
                profile: session.profile, session: SessionInfo(session, at: now))
        case .sessionEnded(let session, let reason, let now):
            let how =
                switch reason {
                case .stopped: "stopped"
                case .unlocked: "ended early (emergency access)"
                case .expired, .daemonRestart: "ended"
                }
            let owner = session.origin == .manual ? "" : " (\(session.origin))"
            self.init(
                type: .sessionEnded, at: now.wall, message: "\(session.profile) block \(how)\(owner)", profile: session.profile,
                session: SessionInfo(session, at: now), reason: reason.rawValue)
        case .sessionExtended(let session, let extra, let now):
            self.init(
                type: .sessionExtended, at: now.wall, message: "\(session.profile) extended by \(DurationParser.format(extra))",
                profile: session.profile, session: SessionInfo(session, at: now))
        case .profilesChanged(let profile, let change, let at):
            let message = profile.map { "profile \($0) \(change.rawValue)" } ?? "configuration reloaded"
            self.init(type: .profilesChanged, at: at, message: message, profile: profile)
        case .enforcementFailed(let enforcer, let message, let at):
            self.init(type: .enforcementFailed, at: at, message: "\(enforcer): \(message)", details: ["enforcer": enforcer])
        case .scheduleWarning(let warning, let now):
            let seconds = Int(warning.at.timeIntervalSince(now).rounded(.up))
            self.init(
                type: .scheduleWarning, at: now, message: warning.message(now: now), profile: warning.profile,
                details: [
                    "schedule": warning.schedule, "edge": warning.edge.rawValue,
                    "at": Timestamp.format(warning.at), "inSeconds": "\(seconds)",
                ])
        case .allowanceWarning(let name, let profile, let left, let at):
            self.init(
                type: .allowanceWarning, at: at, message: "\(name): \(DurationParser.format(left)) left, then \(profile) is blocked",
                profile: profile, details: ["allowance": name, "leftSeconds": "\(Int(left.seconds.rounded()))"])
        case .pomodoro(let event, let run, let profile):
            self.init(
                type: .pomodoroPhase, at: event.at, message: PomodoroEngine.message(event), profile: profile,
                details: PomodoroEventWire.details(event, run: run))
        case .siteBlocked(let attempt, let left), .appBlocked(let attempt, let left):
            self.init(attempt, timeLeft: left)
        case .launchRefused(let attempt, let refusal):
            self.init(attempt, refusal: refusal)
        case .stopping(let at):
            self.init(type: .stopping, at: at, message: "simplylockd is stopping; the stream ends")
        }
    }
}

extension AppInfo {
    init(_ app: InstalledApp) {
        self.init(
            id: app.id, name: app.name, categories: app.categories,
            executables: Array(Set(app.executables.map(\.resolved))).sorted(), flatpakID: app.flatpakID,
            snapName: app.snapName, hidden: app.noDisplay, desktopFiles: app.desktopFiles)
    }
}
