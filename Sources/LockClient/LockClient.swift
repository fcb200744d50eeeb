import Foundation
import LockProtocol
import NIOHTTP1

/// A typed client of the simplylockd control API, used by `lockctl` and by integration tests.
///
/// Each call is one HTTP/1.1 request on a fresh connection to the Unix socket.
public struct LockClient: Sendable {
    /// The socket this client talks to.
    public let socketPath: String
    private let transport: UnixHTTPTransport

    /// Creates a client for the daemon listening at `socketPath`.
    public init(socketPath: String) {
        self.socketPath = socketPath
        transport = UnixHTTPTransport(socketPath: socketPath)
    }

    /// What is blocked now.
    public func status() async throws(ClientError) -> StatusResponse { try await get(Route.status) }

    /// Every profile.
    public func profiles() async throws(ClientError) -> ProfileList { try await get(Route.profiles) }

    /// One profile, with its expanded domains.
    public func profile(_ name: String) async throws(ClientError) -> ProfileInfo { try await get(Route.profile(name)) }

    /// Creates a custom profile.
    public func createProfile(_ request: CreateProfileRequest) async throws(ClientError) -> ProfileInfo {
        try await call(.POST, Route.profiles, request)
    }

    /// Changes a custom profile.
    public func updateProfile(_ name: String, _ request: UpdateProfileRequest) async throws(ClientError) -> ProfileInfo {
        try await call(.PATCH, Route.profile(name), request)
    }

    /// Deletes a custom profile.
    public func deleteProfile(_ name: String) async throws(ClientError) {
        let _: [String: String] = try await call(.DELETE, Route.profile(name), Optional<String>.none)
    }

    /// Starts blocking a profile.
    public func start(_ request: StartRequest) async throws(ClientError) -> SessionInfo {
        try await call(.POST, Route.sessions, request)
    }

    /// Stops the sessions a reference names (a session id or a profile name).
    public func stop(_ reference: String) async throws(ClientError) -> [SessionInfo] {
        try await call(.DELETE, Route.session(reference), Optional<String>.none)
    }

    /// Lengthens a session.
    public func extend(_ reference: String, seconds: Double) async throws(ClientError) -> SessionInfo {
        try await call(.POST, Route.extend(reference), ExtendRequest(seconds: seconds))
    }

    /// Whether a name is blocked now, and by which sessions.
    public func check(_ name: String) async throws(ClientError) -> CheckResponse {
        try await get(Route.check + "?name=" + Route.escape(name))
    }

    /// The most recent sessions.
    public func history(limit: Int = 50) async throws(ClientError) -> HistoryResponse {
        try await get(Route.history + "?limit=\(limit)")
    }

    /// The daemon's checks of itself and the machine, for `lockctl doctor`.
    public func doctor() async throws(ClientError) -> DoctorReport { try await get(Route.doctor) }

    /// The Pomodoro timer.
    public func pomodoro() async throws(ClientError) -> PomodoroInfo { try await get(Route.pomodoro) }

    /// Starts a Pomodoro run linked to a profile.
    public func startPomodoro(_ request: PomodoroStartRequest) async throws(ClientError) -> PomodoroInfo {
        try await call(.POST, Route.pomodoro, request)
    }

    /// Pauses, resumes, skips, stops or moves on the Pomodoro run.
    public func pomodoro(_ action: PomodoroAction) async throws(ClientError) -> PomodoroInfo {
        try await call(.POST, Route.pomodoro(action), Optional<String>.none)
    }

    /// Completed focus phases, newest first, with totals.
    public func pomodoroHistory(limit: Int = 50) async throws(ClientError) -> PomodoroHistoryResponse {
        try await get(Route.pomodoroHistory + "?limit=\(limit)")
    }

    /// Makes the daemon read its configuration and profiles again.
    public func reload() async throws(ClientError) -> ReloadResponse {
        try await call(.POST, Route.reload, Optional<String>.none)
    }

    /// Every schedule, where it stands now, and the files that could not be loaded.
    public func schedules() async throws(ClientError) -> ScheduleList { try await get(Route.schedules) }

    /// One schedule.
    public func schedule(_ name: String) async throws(ClientError) -> ScheduleInfo { try await get(Route.schedule(name)) }

    /// Creates a schedule.
    public func createSchedule(_ request: CreateScheduleRequest) async throws(ClientError) -> ScheduleInfo {
        try await call(.POST, Route.schedules, request)
    }

    /// Changes a schedule (enables or disables it).
    public func updateSchedule(_ name: String, _ request: UpdateScheduleRequest) async throws(ClientError) -> ScheduleInfo {
        try await call(.PATCH, Route.schedule(name), request)
    }

    /// Removes a schedule.
    public func deleteSchedule(_ name: String) async throws(ClientError) {
        let _: [String: String] = try await call(.DELETE, Route.schedule(name), Optional<String>.none)
    }

    /// The next `count` intervals of a schedule that start after `after` (default: now).
    public func nextIntervals(of name: String, count: Int, after: Date? = nil) async throws(ClientError) -> [ScheduleInterval] {
        var path = Route.scheduleNext(name) + "?count=\(count)"
        if let after {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = after.timeIntervalSince1970.rounded() == after.timeIntervalSince1970
                ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
            path += "&after=" + Route.escape(formatter.string(from: after))
        }
        return try await get(path)
    }

    /// Calls `handler` with each event as it happens, until the daemon ends the stream or the
    /// handler throws.
    public func events(_ handler: @Sendable (Event) throws -> Void) async throws(ClientError) {
        let decoder = API.makeDecoder()
        do {
            try await transport.stream(path: Route.events, onStatus: { status, body in
                throw LockClient.failure(status: status, body: body)
            }, onLine: { line in
                guard let event = try? decoder.decode(Event.self, from: Data(line)) else {
                    throw ClientError.protocolError("undecodable event: \(String(decoding: line, as: UTF8.self))")
                }
                try handler(event)
            })
        } catch let error as ClientError {
            throw error
        } catch {
            throw .protocolError("\(error)")
        }
    }

    /// Sends any request and returns the status and raw body, for callers that need the
    /// bytes themselves (tests of the API's error behaviour, `--raw` output).
    public func raw(method: String, path: String, body: [UInt8]? = nil) async throws(ClientError) -> (status: Int, body: [UInt8]) {
        try await transport.send(method: HTTPMethod(rawValue: method), path: path, body: body)
    }

    private func get<T: Decodable>(_ path: String) async throws(ClientError) -> T {
        try await call(.GET, path, Optional<String>.none)
    }

    private func call<T: Decodable>(_ method: HTTPMethod, _ path: String, _ body: (some Encodable)?) async throws(ClientError) -> T {
        var bytes: [UInt8]?
        if let body {
            do { bytes = Array(try API.makeEncoder().encode(body)) } catch { throw .protocolError("cannot encode request: \(error)") }
        }
        let (status, responseBody) = try await transport.send(method: method, path: path, body: bytes)
        guard (200..<300).contains(status) else { throw LockClient.failure(status: status, body: responseBody) }
        do {
            return try API.makeDecoder().decode(T.self, from: Data(responseBody))
        } catch {
            throw .protocolError("cannot decode \(T.self): \(error)")
        }
    }

    private static func failure(status: Int, body: [UInt8]) -> ClientError {
        if let wrapped = try? API.makeDecoder().decode(APIErrorBody.self, from: Data(body)) { return .api(wrapped.error) }
        return .protocolError("HTTP \(status): \(String(decoding: body.prefix(200), as: UTF8.self))")
    }
}
