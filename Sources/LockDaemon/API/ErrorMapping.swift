import Foundation
import LockCore
import LockPlatform
import LockProtocol

/// Turns domain errors into API errors: the status code, and a message that names what to fix
/// and, where it helps, the `lockctl` command to use. The only place that knows about the CLI.
struct ErrorMapping: Sendable {
    /// Now, for times in messages.
    let now: ClockReading
    /// The zone times are written in.
    let zone: TimeZone

    private func time(_ date: Date) -> String { ClockText.time(date, now: now.wall, zone: zone) }

    private func ends(_ session: Session) -> String {
        let left = session.remaining(at: now)
        return "\(time(now.wall.addingTimeInterval(left.seconds))) (\(DurationParser.format(left)) left)"
    }

    func map(_ error: SessionError) -> APIError {
        switch error {
        case .unknownProfile(let name): unknownProfile(name)
        case .noSession(let reference): APIError(.notFound, "no active session for \"\(reference)\" (see `lockctl status`)")
        case .alreadyActive(let session):
            APIError(.conflict, "\(session.profile) is already blocked until \(ends(session)); use `lockctl extend \(session.profile) DURATION` to lengthen it")
        case .strict(let session):
            APIError(.refused, "\(session.profile) is a strict block: it cannot be stopped before it ends at \(ends(session))")
        case .ownedByPomodoro(let session):
            APIError(.refused, "\(session.profile) is blocked by the Pomodoro timer; use `lockctl pomodoro stop` (session \(session.id))")
        case .notManual(let reference, let origin):
            APIError(.refused, "\(reference) was started by \(origin); only manual sessions can be extended")
        case .invalidLength(let problem):
            switch problem {
            case .tooShort: APIError(.invalidArgument, "duration: a block must last at least 1s")
            case .tooLong(let limit):
                APIError(.invalidArgument, "duration: the block would last longer than the \(DurationParser.format(limit)) limit (max_session in simplylockd.toml)")
            case .notInFuture(let date): APIError(.invalidArgument, "until: \(time(date)) is not in the future")
            case .notAnExtension: APIError(.invalidArgument, "seconds: an extension must be at least 1s (sessions can only be lengthened)")
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
            APIError(.refused, "\(name) is a system profile and cannot be changed or deleted; create a custom profile instead")
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .notInProfile(let field, let value, let profile): APIError(.notFound, "\(field): \(value) is not in profile \(profile)")
        case .blocking(let session):
            APIError(.refused, "profile \(session.profile) is blocking now (session \(session.id), \(session.origin)); it can be deleted once that ends")
        case .usedBy(let profile, let user): APIError(.refused, "profile \(profile) is used by \(user); change or remove that first")
        case .io(let message): APIError(.internalError, message)
        case .enforcement(let message):
            APIError(.internalError, "the change could not be enforced on the running blocks, so the profile was left as it was: \(message)")
        }
    }

    func map(_ error: SchedulingError) -> APIError {
        switch error {
        case .notFound(let name): APIError(.notFound, "no schedule named \"\(name)\" (see `lockctl schedules list`)")
        case .exists(let name): APIError(.conflict, "schedule \(name) already exists (see `lockctl schedules show \(name)`)")
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .unknownProfile(let name): unknownProfile(name)
        case .invalidTarget(let problem): target(problem)
        case .strictBlock(let schedule, let session, let verb):
            APIError(.refused, "\(schedule) is blocking now in strict mode until \(ends(session)); it can be \(verb) once that block ends")
        case .io(let message): APIError(.internalError, message)
        }
    }

    func map(_ error: PomodoroError) -> APIError {
        switch error {
        case .unknownProfile(let name): unknownProfile(name)
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .alreadyRunning(let profile, let status):
            APIError(.conflict, "a Pomodoro is already running for \(profile) (\(status)); only one runs at a time: stop it first with `lockctl pomodoro stop`")
        case .notRunning: APIError(.notFound, "no Pomodoro is running; start one with `lockctl pomodoro start --profile NAME`")
        case .refused(let refusal): APIError(refusal.isStrict ? .refused : .conflict, refusal.description)
        case .storage(let message): APIError(.internalError, "cannot save the Pomodoro: \(message)")
        case .session(let error): map(error)
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

    private func target(_ problem: TargetProblem) -> APIError {
        let hint: String =
            switch problem {
            case .unknownGroup(let name, let known, _):
                ClosestMatches.find(name, among: known).first.map { "; did you mean \($0)?" } ?? ""
            case .noLANEnforcer(_, let file): ": add \"unbound\" or \"dnsmasq\" to enforcers in \(file)"
            case .noPerDevicePolicy: "; block the whole LAN with --for lan, or use unbound for device groups"
            }
        return APIError(.invalidArgument, "target: \(problem)\(hint)")
    }

    private func unknownProfile(_ name: String) -> APIError {
        APIError(.notFound, "no profile named \"\(name)\" (see `lockctl profiles list`)")
    }
}
