import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// The route table driven in-process, without a socket (as tailscale's localapi tests and
/// hummingbird's router tests do): what any client, well-behaved or not, gets back.
@Suite("The route table, in-process")
struct RouterTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake])
    }

    static let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
    static let nobody = PeerCredentials(pid: 2, uid: 65_534, gid: 65_534, groups: [65_534])

    func send(_ router: Router, _ method: String, _ uri: String, body: String = "", peer: PeerCredentials = Self.root) async
        -> RouterReply
    {
        await router.reply(method, uri, body: body, peer: peer)
    }

    @Test func everyEndpointOfTheSharedTableIsServedExactlyOnce() async throws {
        let router = try await daemon().core.router()
        let served = router.endpoints.map { "\($0.method) \($0.template)" }
        let declared = Endpoints.all.map { "\($0.method) \($0.template)" }
        #expect(Set(served) == Set(declared))
        #expect(served.count == Set(served).count)
    }

    @Test func wrongMethodsGet405WithAllowAndHeadIsAnsweredWhereGetIs() async throws {
        let router = try await daemon().core.router()
        let put = await send(router, "PUT", "/v1/status")
        #expect(put.status == 405 && put.error?.code == .methodNotAllowed)
        #expect(put.headers.contains { $0.0 == "Allow" && $0.1 == "GET, HEAD" })
        let delete = await send(router, "DELETE", "/v1/profiles")
        #expect(delete.headers.first { $0.0 == "Allow" }?.1 == "GET, HEAD, POST")
        let brew = await send(router, "BREW", "/v1/status")
        #expect(brew.status == 405)
        let head = await send(router, "HEAD", "/v1/status")
        #expect(head.status == 200 && head.decode(StatusResponse.self)?.version == API.softwareVersion)
        // A literal segment wins over a parameter; the parameter route still refuses bad values.
        #expect(await send(router, "GET", "/v1/pomodoro/history").status == 200)
        #expect(await send(router, "POST", "/v1/pomodoro/history").headers.first { $0.0 == "Allow" }?.1 == "GET, HEAD")
        #expect(await send(router, "POST", "/v1/pomodoro/fly").status == 404)
        #expect(await send(router, "GET", "/v1/pomodoro/pause").headers.first { $0.0 == "Allow" }?.1 == "POST")
    }

    @Test func unknownPathsAndBadEscapesAreRefused() async throws {
        let router = try await daemon().core.router()
        #expect(await send(router, "GET", "/status").status == 404)
        #expect(await send(router, "GET", "/v1/nope").status == 404)
        #expect(await send(router, "GET", "/v1/profiles/%zz").status == 400)
        #expect(await send(router, "GET", "/v1/profiles/%ff%fe").status == 400)
        #expect(await send(router, "GET", "/v1/profiles/de%65p-work").status == 200)
    }

    @Test(arguments: [
        "?=", "?a&=", "?=x", "?&&=&", "?limit=0", "?limit=-3", "?limit=abc", "?limit=1e3", "?limit=99999999999999999999",
        "?limit=5&limit=6", "?lmit=5", "?limit=%zz",
    ])
    func badQueriesAreRefusedNeverTrapped(_ query: String) async throws {
        let router = try await daemon().core.router()
        let answer = await send(router, "GET", "/v1/history" + query)
        #expect(answer.status == 400, "\(query): \(answer)")
        #expect(answer.error.map { [.badRequest, .invalidArgument].contains($0.code) } == true, "\(query): \(answer)")
        // Nothing is in the query the status takes, so anything there is refused too.
        #expect(await send(router, "GET", "/v1/status" + query).status == 400)
    }

    @Test func validQueriesAreAccepted() async throws {
        let router = try await daemon().core.router()
        #expect(await send(router, "GET", "/v1/history?limit=10000").status == 200)
        #expect(await send(router, "GET", "/v1/history?").status == 200)
        #expect(await send(router, "GET", "/v1/check?name=reddit.com").status == 200)
        let missing = await send(router, "GET", "/v1/check")
        #expect(missing.status == 400 && missing.message.contains("?name="), "\(missing)")
        #expect(await send(router, "GET", "/v1/check?name=reddit.com&app=steam").status == 400)
        #expect(await send(router, "GET", "/v1/check?app=").status == 400)
        #expect(await send(router, "GET", "/v1/check?app=%07bell").status == 400)
        #expect(await send(router, "GET", "/v1/check?app=no-such-app").status == 404)
        #expect(await send(router, "GET", "/v1/apps").status == 200)
        #expect(await send(router, "GET", "/v1/apps?category=").status == 400)
        #expect(await send(router, "GET", "/v1/apps?category=Game&category=Chat").status == 400)
        #expect(await send(router, "GET", "/v1/check?name=").status == 400)
    }

    @Test func readersMayReadButNotChangeAndAreDecidedFromTheHead() async throws {
        let router = try await daemon().core.router()
        #expect(await send(router, "GET", "/v1/status", peer: Self.nobody).status == 200)
        let start = await send(router, "POST", "/v1/sessions", body: #"{"profile":"news","seconds":60}"#, peer: Self.nobody)
        #expect(start.status == 403 && start.message.contains("uid 65534"))
        guard case .reject(let response) = router.admit(methodName: "POST", uri: "/v1/sessions", peer: Self.nobody) else {
            Issue.record("a change by a reader was admitted")
            return
        }
        #expect(response.status == 403)
        guard case .accept(let readerLimit) = router.admit(methodName: "GET", uri: "/v1/status", peer: Self.nobody),
            case .accept(let adminLimit) = router.admit(methodName: "POST", uri: "/v1/sessions", peer: Self.root)
        else {
            Issue.record("a valid request was refused")
            return
        }
        #expect(readerLimit.maxBody == API.maxReaderBodyBytes && adminLimit.maxBody == API.maxBodyBytes)
        if case .accept = router.admit(methodName: "GET", uri: "/v1/nowhere", peer: Self.root) {
            Issue.record("an unknown route was admitted")
        }
    }

    @Test(arguments: ["1e10", "1e19", "1e20", "1e21", "1e300", "-1", "0", "0.2", "2592001"])
    func hostileExtensionsLeaveAStrictBlockAlone(_ seconds: String) async throws {
        let daemon = try await self.daemon()
        let router = daemon.core.router()
        #expect(await send(router, "POST", "/v1/sessions", body: #"{"profile":"news","seconds":600,"strict":true}"#).status == 201)
        let answer = await send(router, "POST", "/v1/sessions/news/extend", body: #"{"seconds":\#(seconds)}"#)
        #expect(answer.status == 400, "\(seconds): \(answer)")
        #expect(answer.message.hasPrefix("seconds:"), "\(answer.message)")
        let session = try #require(await daemon.sessions.active.first)
        #expect(session.remaining(at: clock.now()) == .seconds(600))
        await daemon.sessions.expireDue()
        #expect(await daemon.sessions.active.count == 1)
    }

    @Test(arguments: [
        #"{"profile":"news","seconds":1e19}"#, #"{"profile":"news","seconds":1e300}"#, #"{"profile":"news","seconds":-1e300}"#,
        #"{"profile":"news","seconds":0}"#, #"{"profile":"news","until":"9999-12-31T23:59:59Z"}"#,
        #"{"profile":"news","until":"1970-01-01T00:00:00Z"}"#, #"{"profile":"news"}"#,
        #"{"profile":"news","seconds":60,"until":"2030-01-01T00:00:00Z"}"#,
    ])
    func hostileStartsAreRefusedWithTheField(_ body: String) async throws {
        let daemon = try await self.daemon()
        let answer = await send(daemon.core.router(), "POST", "/v1/sessions", body: body)
        #expect(answer.status == 400, "\(body): \(answer)")
        #expect(await daemon.sessions.active.isEmpty)
        #expect(await fake.applied.allSatisfy { $0 == .empty })
    }

    @Test(arguments: [
        #"{"profile":"news","focusSeconds":1e300}"#, #"{"profile":"news","longBreakSeconds":-1e300}"#,
        #"{"profile":"news","cycles":1e300}"#, #"{"profile":"news","longEvery":-9223372036854775808}"#,
    ])
    func hostilePomodoroSettingsAreRefused(_ body: String) async throws {
        let daemon = try await self.daemon()
        let answer = await send(daemon.core.router(), "POST", "/v1/pomodoro", body: body)
        #expect(answer.status == 400, "\(body): \(answer)")
        #expect(await daemon.sessions.active.isEmpty)
    }

    @Test func bodiesThatAreNotTheRightJSONAreBadRequests() async throws {
        let router = try await daemon().core.router()
        for body in ["", "null", "[]", "{", #"{"profile":null,"seconds":60}"#, #"{"profile":7,"seconds":60}"#, "\u{0}"] {
            let answer = await send(router, "POST", "/v1/sessions", body: body)
            #expect(answer.status == 400, "\(body.debugDescription): \(answer)")
        }
    }
}
