import Foundation
import LockCore
import LockProtocol

// The wire form of domain values: made here, at the API edge, so that LockProtocol (shared with
// lockctl) depends on nothing.

extension SessionInfo {
    /// The wire form of `session` as it looks at `now`.
    init(_ session: Session, at now: ClockReading) {
        let remainingSeconds = Int(session.remaining(at: now).seconds.rounded(.up))
        self.init(
            id: session.id, profile: session.profile, origin: session.origin.rawValue, strict: session.strict,
            target: session.target.names, startedAt: session.startedAt,
            endsAt: now.wall.addingTimeInterval(Double(remainingSeconds)), remainingSeconds: remainingSeconds,
            blockedNames: session.rules.exactNameCount, apps: session.rules.apps.map(\.id), missingApps: session.rules.missingApps)
        if !session.rules.paths.isEmpty { paths = session.rules.paths.map(\.description) }
        if !session.rules.allowPaths.isEmpty { allowPaths = session.rules.allowPaths.map(\.description) }
        if !session.rules.keywords.isEmpty { keywords = session.rules.keywords.map(\.word) }
    }
}

extension ScheduleInfo {
    /// The wire form of `schedule` as it stands.
    init(_ schedule: Schedule, status: ScheduleStatus, session: String?, problem: String?) {
        var kind = ""
        var days: String?
        var from: String?
        var to: String?
        var on: String?
        var cron: String?
        var seconds: Int?
        switch schedule.rule {
        case .weekly(let window):
            kind = "weekly"
            days = window.days.description
            from = window.from.description
            to = window.to.description
        case .calendar(let spec, let duration):
            kind = "calendar"
            on = spec.normalizedText
            seconds = Int(duration.seconds)
        case .cron(let expression, let duration):
            kind = "cron"
            cron = expression.text
            seconds = Int(duration.seconds)
        }
        self.init(
            name: schedule.name, profile: schedule.profile, kind: kind, days: days, from: from, to: to, on: on, cron: cron,
            seconds: seconds, summary: schedule.summary, flags: schedule.rule.description, tz: schedule.timeZoneName,
            timeZone: schedule.ownZoneName ?? status.zone.identifier, strict: status.strict, warnSeconds: Int(status.warning.seconds),
            enabled: schedule.enabled, target: schedule.target.names, active: status.active, stoppedByHand: status.stoppedByHand,
            strictDeferred: status.strictDeferred, blockEnd: status.blockEnd, next: status.next.map(ScheduleInterval.init),
            session: session, problem: problem)
    }
}

extension ProfileInfo {
    /// The wire form of a profile.
    init(_ profile: Profile, rules: BlockRules, includeExpansion: Bool) {
        let imported = Set(rules.lists.map(\.name))
        self.init(
            name: profile.name, displayName: profile.displayName, description: profile.description, icon: profile.icon,
            color: profile.color, domains: profile.domains.map(\.value), services: profile.services, categories: profile.categories,
            allow: profile.allow.map(\.value), addresses: profile.addresses.map(\.description), lists: profile.lists,
            missingLists: profile.lists.filter { !imported.contains($0) }, mode: profile.mode.rawValue, apps: profile.apps,
            appCategories: profile.appCategories.map(\.name), running: profile.running.rawValue, strict: profile.strict,
            kind: profile.kind.rawValue, domainCount: rules.block.count, expandedDomains: includeExpansion ? rules.block.sorted : nil,
            appCount: rules.apps.count, expandedApps: includeExpansion ? rules.apps.map(\.id) : nil,
            missingApps: includeExpansion ? rules.missingApps : nil)
        paths = profile.paths.map(\.description)
        allowPaths = profile.allowPaths.map(\.description)
        keywords = profile.keywords.map(\.word)
    }
}

extension PomodoroSettings {
    /// The wire form of `config`.
    init(_ config: PomodoroConfig) {
        self.init(
            focusSeconds: config.focus.seconds, shortBreakSeconds: config.shortBreak.seconds, longBreakSeconds: config.longBreak.seconds,
            longEvery: config.longEvery, cycles: config.cycles, manual: config.manual, strict: config.strict)
    }
}

extension PomodoroInfo {
    /// The wire form of a run's status.
    init(_ status: PomodoroStatus, profile: String, startedAt: Date, settings: PomodoroConfig, session: String?, problem: String?) {
        var next: String?
        var nextSeconds: Int?
        switch status.next {
        case .phase(let phase, let duration)?:
            next = phase.rawValue
            nextSeconds = Int(duration.seconds.rounded(.up))
        case .finish?:
            next = "finish"
        case nil:
            break
        }
        var finishReason: String?
        if case .finished(let reason) = status.state { finishReason = reason.rawValue }
        self.init(
            state: status.state.name, profile: profile, phase: status.phase?.rawValue, cycle: status.cycle,
            cycles: status.cycles, remainingSeconds: status.remainingSeconds.map { Int($0) },
            endsAt: status.endsAt, blocking: status.isBlocking, session: status.isBlocking ? session : nil,
            next: next, nextSeconds: nextSeconds, completedFocusPhases: status.completedFocusPhases,
            finishReason: finishReason, startedAt: startedAt, settings: PomodoroSettings(settings),
            summary: status.description, problem: problem)
    }
}

extension ServiceList {
    /// The catalog as clients see it, sorted by name.
    init(_ catalog: ServiceCatalog) {
        let names = Set(catalog.categories.keys).union(catalog.services.values.flatMap(\.categories))
        self.init(
            services: catalog.services.values.sorted { $0.name < $1.name }.map {
                Entry(name: $0.name, displayName: $0.displayName, categories: $0.categories, domains: $0.domains.map(\.value))
            },
            categories: names.sorted().map { name in
                Category(
                    name: name, description: catalog.categories[name] ?? "",
                    services: catalog.services.values.filter { $0.categories.contains(name) }.map(\.name).sorted())
            })
    }
}
