import Foundation
import LockProtocol

/// A typed client of the simplylockd control API, used by `lockctl` and by integration tests.
///
/// Each call is one HTTP/1.1 request on a fresh connection to the Unix socket, to a path and
/// method taken from the shared endpoint table (`Endpoints`).
public struct LockClient: Sendable {
    /// The socket this client talks to.
    public let socketPath: String
    private let transport: UnixSocketHTTP

    /// Creates a client for the daemon listening at `socketPath`.
    public init(socketPath: String) {
        self.socketPath = socketPath
        transport = UnixSocketHTTP(socketPath: socketPath)
    }

    /// What is blocked now.
    public func status() async throws(ClientError) -> StatusResponse { try call(Endpoints.status) }

    /// Every profile.
    public func profiles() async throws(ClientError) -> ProfileList { try call(Endpoints.profiles) }

    /// One profile, with its expanded domains.
    public func profile(_ name: String) async throws(ClientError) -> ProfileInfo { try call(Endpoints.profile, [name]) }

    /// Creates a custom profile.
    public func createProfile(_ request: CreateProfileRequest) async throws(ClientError) -> ProfileInfo {
        try call(Endpoints.createProfile, body: request)
    }

    /// Changes a custom profile.
    public func updateProfile(_ name: String, _ request: UpdateProfileRequest) async throws(ClientError) -> ProfileInfo {
        try call(Endpoints.updateProfile, [name], body: request)
    }

    /// Deletes a custom profile.
    public func deleteProfile(_ name: String) async throws(ClientError) {
        _ = try call(Endpoints.deleteProfile, [name])
    }

    /// Starts blocking a profile.
    public func start(_ request: StartRequest) async throws(ClientError) -> SessionInfo {
        try call(Endpoints.startSession, body: request)
    }

    /// Stops the sessions a reference names (a session id or a profile name).
    public func stop(_ reference: String) async throws(ClientError) -> [SessionInfo] {
        try call(Endpoints.stopSession, [reference])
    }

    /// Lengthens a session.
    public func extend(_ reference: String, seconds: Double) async throws(ClientError) -> SessionInfo {
        try call(Endpoints.extendSession, [reference], body: ExtendRequest(seconds: seconds))
    }

    /// Whether a name is blocked now, and by which sessions.
    public func check(_ name: String, for target: String? = nil) async throws(ClientError) -> CheckResponse {
        var query = ["name": name]
        if let target { query["for"] = target }
        return try call(Endpoints.check, query: query)
    }

    /// Whether a web address is blocked now: its name as `check` answers it, and the path rules
    /// only the browser companion enforces.
    public func check(url: String) async throws(ClientError) -> CheckResponse {
        try call(Endpoints.check, query: ["url": url])
    }

    /// Whether an app is blocked now, and by which sessions.
    public func check(app: String) async throws(ClientError) -> CheckResponse {
        try call(Endpoints.check, query: ["app": app])
    }

    /// Installed apps, optionally only those of a freedesktop category.
    public func apps(category: String? = nil) async throws(ClientError) -> AppList {
        try call(Endpoints.apps, query: category.map { ["category": $0] } ?? [:])
    }

    /// The most recent sessions.
    public func history(limit: Int = 50) async throws(ClientError) -> HistoryResponse {
        try call(Endpoints.history, query: ["limit": "\(limit)"])
    }

    /// The daemon's checks of itself and the machine, for `lockctl doctor`.
    public func doctor() async throws(ClientError) -> DoctorReport { try call(Endpoints.doctor) }

    /// The Pomodoro timer.
    public func pomodoro() async throws(ClientError) -> PomodoroInfo { try call(Endpoints.pomodoro) }

    /// Starts a Pomodoro run linked to a profile.
    public func startPomodoro(_ request: PomodoroStartRequest) async throws(ClientError) -> PomodoroInfo {
        try call(Endpoints.startPomodoro, body: request)
    }

    /// Pauses, resumes, skips, stops or moves on the Pomodoro run.
    public func pomodoro(_ action: PomodoroAction) async throws(ClientError) -> PomodoroInfo {
        try call(Endpoints.pomodoroAction, [action.rawValue])
    }

    /// Completed focus phases, newest first, with totals.
    public func pomodoroHistory(limit: Int = 50) async throws(ClientError) -> PomodoroHistoryResponse {
        try call(Endpoints.pomodoroHistory, query: ["limit": "\(limit)"])
    }

    /// Makes the daemon read its configuration and profiles again.
    public func reload() async throws(ClientError) -> ReloadResponse { try call(Endpoints.reload) }

    /// Every schedule, where it stands now, and the files that could not be loaded.
    public func schedules() async throws(ClientError) -> ScheduleList { try call(Endpoints.schedules) }

    /// One schedule.
    public func schedule(_ name: String) async throws(ClientError) -> ScheduleInfo { try call(Endpoints.schedule, [name]) }

    /// Creates a schedule.
    public func createSchedule(_ request: CreateScheduleRequest) async throws(ClientError) -> ScheduleInfo {
        try call(Endpoints.createSchedule, body: request)
    }

    /// Changes a schedule (enables or disables it).
    public func updateSchedule(_ name: String, _ request: UpdateScheduleRequest) async throws(ClientError) -> ScheduleInfo {
        try call(Endpoints.updateSchedule, [name], body: request)
    }

    /// Removes a schedule.
    public func deleteSchedule(_ name: String) async throws(ClientError) {
        _ = try call(Endpoints.deleteSchedule, [name])
    }

    /// The next `count` intervals of a schedule that start after `after` (default: now).
    public func nextIntervals(of name: String, count: Int, after: Date? = nil) async throws(ClientError) -> [ScheduleInterval] {
        var query = ["count": "\(count)"]
        if let after { query["after"] = Timestamp.format(after) }
        return try call(Endpoints.scheduleNext, [name], query: query)
    }

    /// Every imported blocklist.
    public func lists() async throws(ClientError) -> ListList { try call(Endpoints.lists) }

    /// One imported blocklist, with what its import skipped.
    public func list(_ name: String) async throws(ClientError) -> ListInfo { try call(Endpoints.list, [name]) }

    /// Imports a blocklist from the open file `fd`, read and sent as it is read (a list of a
    /// million lines is never held whole); `source` is recorded (a path, `-` for standard input).
    public func importList(_ name: String, from fd: Int32, source: String) async throws(ClientError) -> ListImport {
        let endpoint = Endpoints.importList
        let path = endpoint.template.path([name]) + "?source=" + PathTemplate.escape(source)
        // An import of a large list takes as long as the daemon needs to parse it.
        let response = try UnixSocketHTTP(socketPath: socketPath, timeout: .seconds(600))
            .upload(method: endpoint.method.rawValue, path: path, contentType: "text/plain", from: fd)
        guard (200..<300).contains(response.status) else { throw LockClient.failure(status: response.status, body: response.body) }
        do { return try API.makeDecoder().decode(ListImport.self, from: Data(response.body)) } catch {
            throw .protocolError("cannot decode ListImport: \(error)")
        }
    }

    /// Removes an imported blocklist.
    public func removeList(_ name: String) async throws(ClientError) { _ = try call(Endpoints.deleteList, [name]) }

    /// Focus time, goals, streaks and blocked attempts from `from` to `to` (defaults: this
    /// week's Monday, now), per day in `zone` (default: the daemon's).
    public func insights(from: Date? = nil, to: Date? = nil, zone: String? = nil) async throws(ClientError) -> InsightsResponse {
        var query: [String: String] = [:]
        if let from { query["from"] = Timestamp.format(from) }
        if let to { query["to"] = Timestamp.format(to) }
        if let zone { query["tz"] = zone }
        return try call(Endpoints.insights, query: query)
    }

    /// Time in use per app, category, site or device group (`by`) over a window.
    public func usage(from: Date? = nil, to: Date? = nil, by: String? = nil, zone: String? = nil, explain: Bool = false)
        async throws(ClientError) -> UsageResponse
    {
        var query: [String: String] = [:]
        if let from { query["from"] = Timestamp.format(from) }
        if let to { query["to"] = Timestamp.format(to) }
        if let by { query["by"] = by }
        if let zone { query["tz"] = zone }
        if explain { query["explain"] = "true" }
        return try call(Endpoints.usage, query: query)
    }

    /// Time allowances with what is used and left.
    public func allowances() async throws(ClientError) -> TimeAllowanceList { try call(Endpoints.allowances) }

    /// Adds a time allowance.
    public func createAllowance(_ request: CreateAllowanceRequest) async throws(ClientError) -> TimeAllowanceInfo {
        try call(Endpoints.createAllowance, body: request)
    }

    /// Removes a time allowance.
    public func deleteAllowance(_ name: String) async throws(ClientError) { _ = try call(Endpoints.deleteAllowance, [name]) }

    /// The focus goals.
    public func goals() async throws(ClientError) -> GoalsInfo { try call(Endpoints.goals) }

    /// Sets (positive seconds) or removes (0) focus goals; nil keeps one as it is.
    public func updateGoals(_ request: UpdateGoalsRequest) async throws(ClientError) -> GoalsInfo {
        try call(Endpoints.updateGoals, body: request)
    }

    /// Emergency access: asks for a challenge to end a strict block early (replacing any
    /// earlier one), or, with `challenge` and `answer`, answers it.
    public func unlock(_ reference: String, challenge: String? = nil, answer: String? = nil) async throws(ClientError) -> UnlockResponse {
        try call(Endpoints.unlockSession, [reference], body: UnlockRequest(challenge: challenge, answer: answer))
    }

    /// Calls `handler` with each event as it happens, until the daemon ends the stream or the
    /// handler throws (its error passes through).
    public func events(_ handler: @Sendable (Event) throws -> Void) async throws {
        let decoder = API.makeDecoder()
        let endpoint = Endpoints.events
        do {
            try UnixSocketHTTP(socketPath: socketPath, timeout: nil).stream(
                path: endpoint.template.path([]),
                onStatus: { status, body in throw LockClient.failure(status: status, body: body) },
                onLine: { line in
                    guard let event = try? decoder.decode(Event.self, from: Data(line)) else {
                        throw ClientError.protocolError("undecodable event: \(String(decoding: line, as: UTF8.self))")
                    }
                    try handler(event)
                })
        } catch let error as ClientError {
            throw error
        }
    }

    // Added for lockctl services, status --watch and notify (issue 14).

    /// The service catalog.
    public func services() async throws(ClientError) -> ServiceList { try call(Endpoints.services) }

    /// Calls `handler` with each line of the event stream as the daemon sent it (one JSON
    /// object), until the daemon ends the stream or the handler throws. For clients that must
    /// pass on events whose type they do not know (`lockctl events --json`), or decode them
    /// leniently (`lockctl notify`).
    public func eventLines(_ handler: @Sendable ([UInt8]) throws -> Void) async throws {
        try followEventLines(handler)
    }

    /// `eventLines` for callers that are not async: blocks until the stream ends.
    public func followEventLines(_ handler: ([UInt8]) throws -> Void) throws {
        let endpoint = Endpoints.events
        try UnixSocketHTTP(socketPath: socketPath, timeout: nil).stream(
            path: endpoint.template.path([]),
            onStatus: { status, body in throw LockClient.failure(status: status, body: body) },
            onLine: handler)
    }

    /// A request without a body, made at once: for callers that are not async, such as an
    /// event-stream handler that reads the status after each event.
    public func fetch<Answer: Decodable>(_ endpoint: Endpoint<NoBody, Answer>, _ parameters: [String] = []) throws(ClientError) -> Answer {
        try call(endpoint, parameters)
    }

    /// The body of a successful answer as the daemon sent it (compact JSON, sorted keys),
    /// without decoding it: for callers that only pass it on (`lockctl status --json`).
    public func fetchBody<Answer: Decodable>(_ endpoint: Endpoint<NoBody, Answer>) throws(ClientError) -> [UInt8] {
        let response = try transport.send(method: endpoint.method.rawValue, path: endpoint.template.path([]), body: nil)
        guard (200..<300).contains(response.status) else { throw LockClient.failure(status: response.status, body: response.body) }
        return response.body
    }

    /// Sends `body` (JSON as the caller has it) to one endpoint and returns the status and the
    /// answer as the daemon sent it, undecoded: for relays that pass answers on (the browser
    /// bridge), each still limited to an endpoint of the table.
    public func relay<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>, _ parameters: [String] = [], query: [String: String] = [:], body: [UInt8]? = nil
    ) throws(ClientError) -> (status: Int, body: [UInt8]) {
        var path = endpoint.template.path(parameters)
        if !query.isEmpty {
            path +=
                "?"
                + query.sorted { $0.key < $1.key }.map { "\(PathTemplate.escape($0.key))=\(PathTemplate.escape($0.value))" }
                .joined(separator: "&")
        }
        let response = try transport.send(method: endpoint.method.rawValue, path: path, body: body)
        return (response.status, response.body)
    }

    private func call<Body: Encodable, Answer: Decodable>(
        _ endpoint: Endpoint<Body, Answer>, _ parameters: [String] = [],
        query: [String: String] = [:], body: Body? = nil
    ) throws(ClientError) -> Answer {
        var path = endpoint.template.path(parameters)
        if !query.isEmpty {
            path +=
                "?"
                + query.sorted { $0.key < $1.key }.map { "\(PathTemplate.escape($0.key))=\(PathTemplate.escape($0.value))" }
                .joined(separator: "&")
        }
        var bytes: [UInt8]?
        if let body {
            do { bytes = Array(try API.makeEncoder().encode(body)) } catch { throw .protocolError("cannot encode request: \(error)") }
        }
        let response = try transport.send(method: endpoint.method.rawValue, path: path, body: bytes)
        guard (200..<300).contains(response.status) else { throw LockClient.failure(status: response.status, body: response.body) }
        do {
            return try API.makeDecoder().decode(Answer.self, from: Data(response.body))
        } catch {
            throw .protocolError("cannot decode \(Answer.self): \(error)")
        }
    }

    private func call<Answer: Decodable>(
        _ endpoint: Endpoint<NoBody, Answer>, _ parameters: [String] = [],
        query: [String: String] = [:]
    ) throws(ClientError) -> Answer {
        try call(endpoint, parameters, query: query, body: Optional<NoBody>.none)
    }

    private static func failure(status: Int, body: [UInt8]) -> ClientError {
        if let wrapped = try? API.makeDecoder().decode(APIErrorBody.self, from: Data(body)) { return .api(wrapped.error) }
        return .protocolError("HTTP \(status): \(String(decoding: body.prefix(200), as: UTF8.self))")
    }
}
