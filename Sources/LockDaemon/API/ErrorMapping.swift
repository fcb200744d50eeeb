import Foundation
import LockCore
import LockPlatform
import LockProtocol

/// Turns domain errors into API errors: the status code, a message that says what went wrong
/// (a refused value named by its request field first, `seconds: …`), and, where it helps, a
/// hint with the `lockctl` command to use. The only place that knows about the CLI.
struct ErrorMapping: Sendable {
    /// Now, for times in messages.
    let now: ClockReading
    /// The zone times are written in.
    let zone: TimeZone

    private func time(_ date: Date) -> String { ClockText.time(date, now: now.wall, zone: zone) }

    private func ends(_ session: Session) -> String {
        let left = session.remaining(at: now)
        return "\(time(now.wall.addingTimeInterval(left.seconds))), \(DurationParser.format(left)) from now"
    }

    func map(_ error: SessionError) -> APIError {
        switch error {
        case .unknownProfile(let name): unknownProfile(name)
        case .noSession(let reference):
            APIError(.notFound, "no active block of \"\(reference)\"", hint: "`lockctl status` lists the active blocks")
        case .alreadyActive(let session):
            APIError(
                .conflict, "\(session.profile) is already blocked until \(ends(session))",
                hint: "lengthen it with `lockctl extend \(session.profile) DURATION`")
        case .strict(let session):
            APIError(.refused, "\(session.profile) is a strict block: it cannot be stopped before it ends at \(ends(session))")
        case .ownedByPomodoro(let session):
            APIError(
                .refused, "\(session.profile) is blocked by the Pomodoro timer (session \(session.id))",
                hint: "end the Pomodoro with `lockctl pomodoro stop`")
        case .notManual(let reference, let origin):
            APIError(.refused, "\(reference) was started by \(origin); only blocks started by hand can be extended")
        case .invalidLength(let problem):
            switch problem {
            case .tooShort: APIError(.invalidArgument, "duration: a block must last at least 1s")
            case .tooLong(let limit):
                APIError(
                    .invalidArgument,
                    "duration: the block would last longer than the \(DurationParser.format(limit)) limit (max_session in simplylockd.toml)"
                )
            case .notInFuture(let date): APIError(.invalidArgument, "until: \(time(date)) is not in the future")
            case .notAnExtension: APIError(.invalidArgument, "seconds: an extension must be at least 1s (blocks can only get longer)")
            }
        case .invalidTarget(let problem): target(problem)
        case .storage(let message): APIError(.internalError, "cannot save the change, nothing was changed: \(message)")
        case .enforcement(let message): APIError(.internalError, "cannot enforce the change, nothing was changed: \(message)")
        }
    }

    func map(_ error: ProfileError) -> APIError {
        switch error {
        case .notFound(let name): unknownProfile(name)
        case .exists(let name): APIError(.conflict, "profile \(name) already exists")
        case .system(let name):
            APIError(
                .refused, "\(name) is a system profile and cannot be changed or deleted",
                hint: "create a custom profile instead: `lockctl profiles create NAME …`")
        case .invalid(let error): APIError(.invalidArgument, error.description)
        // 409, not 404: the profile exists; what the request would remove is not in it.
        case .notInProfile(let field, let value, let profile): APIError(.conflict, "\(field): \(value) is not in profile \(profile)")
        case .blocking(let session):
            APIError(
                .refused, "profile \(session.profile) is blocking now (session \(session.id), \(session.origin))",
                hint: "it can be deleted once that block ends")
        case .usedBy(let profile, let user):
            APIError(.refused, "profile \(profile) is used by \(user)", hint: "change or remove that first")
        case .io(let message): APIError(.internalError, message)
        case .weakensStrictBlock(let session, let changes):
            APIError(
                .refused,
                "\(session.profile) is a strict block until \(ends(session)): only stricter edits are allowed while it runs, "
                    + "and this edit \(Self.list(changes)); nothing was changed (adding to the profile applies at once)")
        case .enforcement(let message):
            APIError(
                .internalError, "the change could not be enforced on the running blocks, so the profile was left as it was: \(message)")
        }
    }

    func map(_ error: SchedulingError) -> APIError {
        switch error {
        case .notFound(let name): APIError(.notFound, "no schedule named \"\(name)\"", hint: "`lockctl schedules list` lists them")
        case .exists(let name):
            APIError(.conflict, "schedule \(name) already exists", hint: "change it with `lockctl schedules edit \(name) …`")
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .unknownProfile(let name): unknownProfile(name)
        case .invalidTarget(let problem): target(problem)
        case .strictBlock(let schedule, let session, let verb):
            APIError(
                .refused, "\(schedule) is blocking now in strict mode until \(ends(session))",
                hint: "it can be \(verb) once that block ends")
        case .io(let message): APIError(.internalError, message)
        }
    }

    func map(_ error: PomodoroError) -> APIError {
        switch error {
        case .unknownProfile(let name): unknownProfile(name)
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .alreadyRunning(let profile, let status):
            APIError(
                .conflict, "a Pomodoro is already running for \(profile) (\(status)); only one runs at a time",
                hint: "stop it first with `lockctl pomodoro stop`")
        case .notRunning: APIError(.notFound, "no Pomodoro is running", hint: "start one with `lockctl pomodoro start --profile NAME`")
        case .refused(let refusal): APIError(refusal.isStrict ? .refused : .conflict, refusal.description)
        case .storage(let message): APIError(.internalError, "cannot save the Pomodoro: \(message)")
        case .session(let error): map(error)
        }
    }

    func map(_ error: ListError) -> APIError {
        switch error {
        case .invalidName(let problem): APIError(.invalidArgument, "list name: \(problem.reason)")
        case .notFound(let name):
            APIError(.notFound, "no list named \"\(name)\" (see `lockctl lists list`; import one with `lockctl lists import \(name) FILE`)")
        case .importInProgress(let name):
            APIError(.conflict, "the list \(name) is being imported; one import runs at a time, try again when it is done")
        case .tooManyNames(let limit): APIError(.tooLarge, "the list has more than \(limit) names; split it into several lists")
        case .empty(let report):
            APIError(
                .invalidArgument,
                "the text gave no name to block (\(report.lines) lines, \(report.comments) comments"
                    + (report.summary.isEmpty ? ")" : "; " + report.summary.joined(separator: "; ") + ")"))
        case .transfer(let message): APIError(.badRequest, "the list's text did not arrive whole: \(message)")
        case .bodyTooLarge(let limit): APIError(.tooLarge, "the list's text is larger than \(limit) bytes")
        case .usedByStrictBlock(let list, let session):
            APIError(
                .refused,
                "the strict block \(session.profile) (session \(session.id)) holds the list \(list) until \(ends(session)); it can be removed once that ends"
            )
        case .io(let message): APIError(.internalError, "cannot store the list, nothing was changed: \(message)")
        case .enforcement(let message):
            APIError(.internalError, "the running blocks could not be moved to the list's new version, so the old one stays: \(message)")
        }
    }

    func map(_ error: ReportError) -> APIError {
        switch error {
        case .storage(let message): APIError(.internalError, "cannot read the history: \(message)")
        }
    }

    func map(_ error: AppLookupError) -> APIError {
        switch error {
        case .unknown: APIError(.notFound, "\(error.description) (see `lockctl apps list`)")
        case .notExecutable, .noExecutables: APIError(.invalidArgument, error.description)
        }
    }

    func map(_ error: InsightsError) -> APIError {
        switch error {
        case .invalidWindow(let reason): APIError(.invalidArgument, reason)
        case .unknownZone(let name): APIError(.invalidArgument, "tz: \"\(name)\" is not a time zone (e.g. Europe/Berlin)")
        case .invalidGoal(let field, let reason): APIError(.invalidArgument, "\(field): \(reason)")
        case .storage(let message): APIError(.internalError, "cannot read or save insights: \(message)")
        }
    }

    func map(_ error: EmergencyError) -> APIError {
        switch error {
        case .noSession(let reference): APIError(.notFound, "no active session for \"\(reference)\" (see `lockctl status`)")
        case .notStrict(let session):
            APIError(.conflict, "\(session.profile) is not a strict block; stop it with `lockctl stop \(session.profile)`")
        case .ownedByPomodoro(let session):
            APIError(
                .refused, "\(session.profile) is blocked by a strict Pomodoro run, which cannot be ended early (session \(session.id))")
        case .ambiguous(let reference, let sessions):
            APIError(
                .conflict,
                "several strict blocks match \"\(reference)\" (\(sessions.map { "\($0.id) \($0.origin)" }.joined(separator: ", "))); name one by its id"
            )
        case .notAllowed(let session):
            APIError(
                .refused,
                "\(session.profile) is a strict block until \(ends(session)) and allows no early end "
                    + "(set [friction] emergency_per_week in its profile or in simplylockd.toml to allow some)")
        case .allowanceUsed(let session, let status):
            APIError(
                .refused,
                "no early end left: \(status.used) of \(status.allowed) used in the last 7 days"
                    + (status.nextFree.map { "; the next is allowed \(time($0))" } ?? "") + "; \(session.profile) ends at \(ends(session))")
        case .noChallenge(let session):
            APIError(
                .conflict,
                "no challenge is open for \(session.profile) (or a newer one replaced it); start again with `lockctl unlock \(session.profile)`"
            )
        case .tooEarly(_, let remaining):
            APIError(.refused, "too early: wait \(DurationParser.format(remaining)) more before answering")
        case .wrongAnswer(let session, let triesLeft):
            APIError(
                .refused,
                triesLeft > 0
                    ? "the text does not match; \(triesLeft) more tr\(triesLeft == 1 ? "y" : "ies") with this challenge"
                    : "the text does not match, and no tries are left: start again with `lockctl unlock \(session.profile)`")
        case .pasted(let session):
            APIError(
                .refused,
                "the answer contains the separators shown between groups: type the text instead of pasting it; start again with `lockctl unlock \(session.profile)`"
            )
        case .expired(let session):
            APIError(.refused, "the challenge expired; start again with `lockctl unlock \(session.profile)`")
        case .incompleteAnswer:
            APIError(.invalidArgument, "an answer needs both challenge and answer (send neither to ask for a challenge)")
        case .session(let error): map(error)
        case .storage(let message): APIError(.internalError, "cannot read the early ends: \(message)")
        }
    }

    /// Up to five items of a list, for messages.
    static func list(_ items: [String]) -> String {
        let shown = items.prefix(5).joined(separator: ", ")
        return items.count > 5 ? "\(shown) and \(items.count - 5) more" : shown
    }

    private func target(_ problem: TargetProblem) -> APIError {
        let hint: String? =
            switch problem {
            case .unknownGroup(let name, let known, _): ClosestMatches.find(name, among: known).first.map { "did you mean \($0)?" }
            case .noLANEnforcer(_, _, let heldBack) where !heldBack.isEmpty:
                "start simplylockd with --enforcers hosts,\(heldBack.joined(separator: ","))"
            case .noLANEnforcer(_, let file, _): "add \"unbound\" or \"dnsmasq\" to enforcers in \(file)"
            case .noPerDevicePolicy: "block the whole LAN with --for lan, or use unbound for device groups"
            }
        return APIError(.invalidArgument, "target: \(problem)", hint: hint)
    }

    private func unknownProfile(_ name: String) -> APIError {
        APIError(.notFound, "no profile named \"\(name)\"", hint: "`lockctl profiles list` lists them")
    }
}
