import Foundation
import LockCore
import LockEnforcement
import LockNames
import LockPlatform
import LockProtocol
import LockStore
import Logging
import Synchronization
import TestSupport
import Testing

@testable import LockDaemon

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let state: Mutex<ClockReading>

    init(boot: Double = 1000, wall: Double = 1_800_000_000, bootID: String = "boot-1") {
        state = Mutex(ClockReading(wall: Date(timeIntervalSince1970: wall), boot: BootTime(seconds: boot), bootID: bootID))
    }

    func now() -> ClockReading { state.withLock { $0 } }

    /// Moves both clocks forward, as real time passing does.
    func advance(_ seconds: Double) {
        state.withLock {
            $0.boot = $0.boot + .seconds(seconds)
            $0.wall = $0.wall.addingTimeInterval(seconds)
        }
    }

    /// Whether the kernel says the wall clock is synchronised.
    func setSynchronised(_ synchronised: Bool) { state.withLock { $0.wallIsSynchronised = synchronised } }

    /// Moves only the wall clock, as a user changing the time does.
    func setWall(by seconds: Double) { state.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) } }

    /// A reboot: a new boot id and a boot clock starting near zero, after `offSeconds` off.
    func reboot(offSeconds: Double, bootID: String) {
        state.withLock {
            $0.wall = $0.wall.addingTimeInterval(offSeconds)
            $0.boot = BootTime(seconds: 3)
            $0.bootID = bootID
        }
    }
}

/// Remembers the deadlines a service arms.
final class RecordingTimer: DeadlineTimer, @unchecked Sendable {
    private let lock = NSLock()
    private var deadlines: [BootTime?] = []
    func arm(at deadline: BootTime?) {
        lock.lock()
        deadlines.append(deadline)
        lock.unlock()
    }
    var last: BootTime?? {
        lock.lock()
        defer { lock.unlock() }
        return deadlines.last
    }
}

/// Remembers the instants a scheduler arms its wall-clock timer for.
final class RecordingWallTimer: WallClockTimer, @unchecked Sendable {
    private let lock = NSLock()
    private var instants: [Date?] = []
    func arm(atWall instant: Date?) {
        lock.lock()
        instants.append(instant)
        lock.unlock()
    }
    var last: Date? {
        lock.lock()
        defer { lock.unlock() }
        return instants.last ?? nil
    }
}

/// The system's time zone, as the test sets it.
final class ManualZone: Sendable {
    private let state: Mutex<TimeZone>
    init(_ identifier: String) { state = Mutex(TimeZone(identifier: identifier)!) }
    var current: TimeZone { state.withLock { $0 } }
    func set(_ identifier: String) { state.withLock { $0 = TimeZone(identifier: identifier)! } }
}

/// Hands out 1, 2, 3, … for test identifiers.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// The daemon's services over `scratch` as the daemon builds them at start-up (profiles
/// loaded, saved state restored, schedules evaluated), with a fake enforcer, a hand-moved clock
/// and recording timers. Starting another over the same store is a restart. Requests go through
/// the real route table in-process (`api`), so tests see what a client would.
struct TestDaemon {
    let core: DaemonCore
    let api: InProcessAPI

    static func start(
        scratch: Scratch, store: StateStore, clock: ManualClock, enforcers: [any Enforcer],
        configuration: DaemonConfiguration = DaemonConfiguration(), zone: ManualZone = ManualZone("UTC"),
        sessionTimer: RecordingTimer = RecordingTimer(), pomodoroTimer: RecordingTimer = RecordingTimer(),
        scheduleTimer: RecordingWallTimer = RecordingWallTimer(), counter: Counter = Counter(),
        ids: @escaping @Sendable (Int) -> String = { "s\($0)" },
        library: BlocklistLibrary? = nil, caches: ResolverCacheFlusher? = nil
    ) async throws -> TestDaemon {
        var profiles = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(profiles.reload().isEmpty)
        // The lists stored under the scratch root, as the daemon loads them at start-up.
        let loaded =
            library.map { ($0, [FileProblem]()) }
            ?? ListService.load(BlocklistStore(directory: scratch.paths.listsDirectory), logger: Logger(label: "test"))
        let core = try await DaemonCore.start(
            paths: scratch.paths, configuration: .init(configuration: configuration), profiles: profiles, enforcers: enforcers,
            store: store, timers: .init(sessions: sessionTimer, pomodoro: pomodoroTimer, schedules: scheduleTimer),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: { clock.now() }, zone: { zone.current },
            makeID: { ids(counter.next()) }, library: loaded.0, listProblems: loaded.1, caches: caches)
        return TestDaemon(core: core, api: InProcessAPI(router: core.router()))
    }

    var sessions: SessionService { core.sessions }
    var scheduler: Scheduler { core.scheduler }
    var engine: PomodoroEngine { core.pomodoro }
}

/// Calls the daemon's route table directly, as the server does for a request from root.
struct InProcessAPI: Sendable {
    let router: Router
    var peer = PeerCredentials(pid: 1, uid: 0, gid: 0)

    func call<Body: Encodable & Sendable, Answer: Decodable & Sendable>(
        _ endpoint: Endpoint<Body, Answer>, _ parameters: [String] = [], query: String? = nil, body: Body? = nil
    ) async throws(APIError) -> Answer {
        let bytes = body.flatMap { try? API.makeEncoder().encode($0) }.map(Array.init) ?? []
        let uri = endpoint.template.path(parameters) + (query.map { "?" + $0 } ?? "")
        let response = await router.handle(APIRequest(methodName: endpoint.method.rawValue, uri: uri, body: bytes, peer: peer))
        guard case .json(let status, let answer, _) = response else { throw APIError(.internalError, "not a JSON answer") }
        guard (200..<300).contains(status) else {
            throw (try? API.makeDecoder().decode(APIErrorBody.self, from: Data(answer)).error) ?? APIError(.internalError, "HTTP \(status)")
        }
        do { return try API.makeDecoder().decode(Answer.self, from: Data(answer)) } catch {
            throw APIError(.internalError, "cannot decode \(Answer.self): \(error)")
        }
    }

    func call<Answer: Decodable & Sendable>(
        _ endpoint: Endpoint<NoBody, Answer>, _ parameters: [String] = [],
        query: String? = nil
    ) async throws(APIError) -> Answer {
        try await call(endpoint, parameters, query: query, body: Optional<NoBody>.none)
    }

    // The requests the tests make, named as the client names them.
    func start(_ request: StartRequest) async throws(APIError) -> SessionInfo { try await call(Endpoints.startSession, body: request) }
    func stop(_ reference: String) async throws(APIError) -> [SessionInfo] { try await call(Endpoints.stopSession, [reference]) }
    func extend(_ reference: String, by seconds: Double) async throws(APIError) -> SessionInfo {
        try await call(Endpoints.extendSession, [reference], body: ExtendRequest(seconds: seconds))
    }
    func status() async throws(APIError) -> StatusResponse { try await call(Endpoints.status) }
    func importList(_ name: String, _ text: String, source: String = "test") async throws(APIError) -> ListImport {
        let uri = Endpoints.importList.template.path([name]) + "?source=" + PathTemplate.escape(source)
        let response = await router.handle(
            APIRequest(
                methodName: "PUT", uri: uri, peer: peer,
                bodyStream: .buffered(Array(text.utf8), pieceSize: 7)))
        guard case .json(let status, let answer, _) = response else { throw APIError(.internalError, "not a JSON answer") }
        guard (200..<300).contains(status) else {
            throw (try? API.makeDecoder().decode(APIErrorBody.self, from: Data(answer)).error) ?? APIError(.internalError, "HTTP \(status)")
        }
        do { return try API.makeDecoder().decode(ListImport.self, from: Data(answer)) } catch {
            throw APIError(.internalError, "cannot decode ListImport: \(error)")
        }
    }
    func lists() async throws(APIError) -> ListList { try await call(Endpoints.lists) }
    func list(_ name: String) async throws(APIError) -> ListInfo { try await call(Endpoints.list, [name]) }
    func removeList(_ name: String) async throws(APIError) { _ = try await call(Endpoints.deleteList, [name]) }
    func check(_ name: String) async throws(APIError) -> CheckResponse {
        try await call(Endpoints.check, query: "name=" + PathTemplate.escape(name))
    }
    func createProfile(_ request: CreateProfileRequest) async throws(APIError) -> ProfileInfo {
        try await call(Endpoints.createProfile, body: request)
    }
    func updateProfile(_ name: String, _ request: UpdateProfileRequest) async throws(APIError) -> ProfileInfo {
        try await call(Endpoints.updateProfile, [name], body: request)
    }
    func deleteProfile(_ name: String) async throws(APIError) { _ = try await call(Endpoints.deleteProfile, [name]) }
    func reload() async throws(APIError) -> ReloadResponse { try await call(Endpoints.reload) }
    func createSchedule(_ request: CreateScheduleRequest) async throws(APIError) -> ScheduleInfo {
        try await call(Endpoints.createSchedule, body: request)
    }
    func updateSchedule(_ name: String, _ request: UpdateScheduleRequest) async throws(APIError) -> ScheduleInfo {
        try await call(Endpoints.updateSchedule, [name], body: request)
    }
    func removeSchedule(_ name: String) async throws(APIError) { _ = try await call(Endpoints.deleteSchedule, [name]) }
    func schedule(_ name: String) async throws(APIError) -> ScheduleInfo { try await call(Endpoints.schedule, [name]) }
    func schedules() async throws(APIError) -> ScheduleList { try await call(Endpoints.schedules) }
    func next(_ name: String, count: Int, after: Date?) async throws(APIError) -> [ScheduleInterval] {
        var query = "count=\(count)"
        if let after { query += "&after=" + PathTemplate.escape(Timestamp.format(after)) }
        return try await call(Endpoints.scheduleNext, [name], query: query)
    }
    func startPomodoro(_ request: PomodoroStartRequest) async throws(APIError) -> PomodoroInfo {
        try await call(Endpoints.startPomodoro, body: request)
    }
    func pomodoro(_ action: PomodoroAction) async throws(APIError) -> PomodoroInfo {
        try await call(Endpoints.pomodoroAction, [action.rawValue])
    }
    func pomodoro() async throws(APIError) -> PomodoroInfo { try await call(Endpoints.pomodoro) }
    func pomodoroHistory(limit: Int) async throws(APIError) -> PomodoroHistoryResponse {
        try await call(Endpoints.pomodoroHistory, query: "limit=\(limit)")
    }
}

/// The domain name parser as the daemon builds it, with the machine's public suffix list.
let testNames = DomainNameParser.system().parser
