/// The API's routes, so the server's router and the client name paths the same way.
public enum Route {
    /// `GET` status.
    public static let status = "/v1/status"
    /// `GET` list, `POST` create.
    public static let profiles = "/v1/profiles"
    /// `GET`, `PATCH`, `DELETE` one profile.
    public static func profile(_ name: String) -> String { "/v1/profiles/\(escape(name))" }
    /// `POST` start.
    public static let sessions = "/v1/sessions"
    /// `DELETE` stop (by id or profile name).
    public static func session(_ reference: String) -> String { "/v1/sessions/\(escape(reference))" }
    /// `POST` extend.
    public static func extend(_ reference: String) -> String { "/v1/sessions/\(escape(reference))/extend" }
    /// `GET` check a name: `?name=`.
    public static let check = "/v1/check"
    /// `GET` history: `?limit=`.
    public static let history = "/v1/history"
    /// `POST` reload configuration.
    public static let reload = "/v1/reload"
    /// `GET` the daemon's own checks for `lockctl doctor`.
    public static let doctor = "/v1/doctor"
    /// `GET` event stream (one JSON object per line).
    public static let events = "/v1/events"
    /// `GET` the Pomodoro timer, `POST` start it.
    public static let pomodoro = "/v1/pomodoro"
    /// `POST` pause, resume, skip, stop or next.
    public static func pomodoro(_ action: PomodoroAction) -> String { "/v1/pomodoro/\(action.rawValue)" }
    /// `GET` completed focus phases: `?limit=`.
    public static let pomodoroHistory = "/v1/pomodoro/history"
    /// `GET` list, `POST` create schedules.
    public static let schedules = "/v1/schedules"
    /// `GET`, `PATCH` (enable, disable), `DELETE` one schedule.
    public static func schedule(_ name: String) -> String { "/v1/schedules/\(escape(name))" }
    /// `GET` a schedule's next intervals: `?count=&after=`.
    public static func scheduleNext(_ name: String) -> String { "/v1/schedules/\(escape(name))/next" }

    /// Percent-encodes one path segment.
    public static func escape(_ segment: String) -> String {
        var allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".unicodeScalars)
        allowed.remove("/")
        var out = ""
        for byte in segment.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, allowed.contains(scalar) { out.unicodeScalars.append(scalar) }
            else { out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2) }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
