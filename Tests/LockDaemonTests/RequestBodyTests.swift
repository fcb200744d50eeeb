import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// What a request body may hold: only the fields its type knows, values in range, names one per
/// entry and display text without control characters; each refusal names the problem and
/// changes nothing.
@Suite("Request bodies, in-process")
struct RequestBodyTests {
    let daemon: InProcessDaemon
    var scratch: Scratch { daemon.scratch }

    init() throws { daemon = try InProcessDaemon() }

    func router() async throws -> Router { try await daemon.router() }

    func send(_ router: Router, _ method: String, _ uri: String, _ body: String) async -> RouterReply {
        await daemon.send(router, method, uri, body)
    }

    @Test(arguments: [
        ("PATCH", "/v1/profiles/mine", #"{"domains": []}"#, "domains"),
        ("PATCH", "/v1/profiles/mine", #"{"mode": "allowlist"}"#, "mode"),
        ("POST", "/v1/profiles", #"{"name": "other", "colour": "red"}"#, "colour"),
        ("POST", "/v1/sessions", #"{"profile": "mine", "seconds": 60, "strcit": true}"#, "strcit"),
        ("POST", "/v1/sessions/mine/extend", #"{"seconds": 60, "minutes": 1}"#, "minutes"),
        ("POST", "/v1/pomodoro", #"{"profile": "mine", "focus": 60}"#, "focus"),
        ("PATCH", "/v1/goals", #"{"daily": 60}"#, "daily"),
        ("POST", "/v1/sessions/mine/unlock", #"{"text": "x"}"#, "text"),
        (
            "POST", "/v1/schedules", #"{"name": "s", "profile": "mine", "days": "Mon", "from": "09:00", "to": "10:00", "zone": "UTC"}"#,
            "zone"
        ),
        ("PATCH", "/v1/schedules/s", #"{"enable": false}"#, "enable"),
    ])
    func unknownFieldsAreRefusedByName(method: String, uri: String, body: String, field: String) async throws {
        let router = try await router()
        #expect(await send(router, "POST", "/v1/profiles", #"{"name": "mine", "domains": ["a.example"]}"#).status == 201)
        let answer = await send(router, method, uri, body)
        #expect(answer.status == 400, "\(answer)")
        #expect(answer.message.contains("unknown field \"\(field)\""), "\(answer.message)")
        let profile = try #require(await send(router, "GET", "/v1/profiles/mine", "").decode(ProfileInfo.self))
        #expect(profile.domains == ["a.example"])
        #expect(profile.mode != "allowlist")
    }

    @Test("a schedule request is read in two parts (its own fields and the schedule's): an unknown field lists both as known")
    func scheduleRequestsKnowTheFieldsOfBothParts() async throws {
        let router = try await router()
        let create = await send(router, "POST", "/v1/schedules", #"{"name": "s", "profile": "mine", "zone": "UTC"}"#)
        #expect(create.status == 400)
        #expect(
            create.message.hasSuffix("(known: cron, days, from, name, now, on, profile, seconds, strict, target, to, tz, warnSeconds)"),
            "\(create.message)")
        let update = await send(router, "PATCH", "/v1/schedules/s", #"{"enable": false}"#)
        #expect(
            update.message.hasSuffix("(known: cron, days, enabled, from, now, on, profile, seconds, strict, to, tz, warnSeconds)"),
            "\(update.message)")
    }

    @Test("the schedule requests' JSON is one flat object, as the API document describes it, and reads back the same")
    func scheduleRequestsAreFlatOnTheWire() throws {
        let create = CreateScheduleRequest(
            name: "am", profile: "news", days: "mon-fri", from: "09:00", to: "12:30", now: true, target: ["lan"])
        let json = try #require(String(data: try API.makeEncoder().encode(create), encoding: .utf8))
        #expect(json == #"{"days":"mon-fri","from":"09:00","name":"am","now":true,"profile":"news","target":["lan"],"to":"12:30"}"#)
        #expect(try API.makeDecoder().decode(CreateScheduleRequest.self, from: Data(json.utf8)) == create)
        let update = UpdateScheduleRequest(enabled: false, tz: "")
        let patch = try #require(String(data: try API.makeEncoder().encode(update), encoding: .utf8))
        #expect(patch == #"{"enabled":false,"tz":""}"#)
        #expect(try API.makeDecoder().decode(UpdateScheduleRequest.self, from: Data(patch.utf8)) == update)
    }

    @Test func aBodyWhereNoneIsReadIsRefused() async throws {
        let router = try await router()
        #expect(await send(router, "POST", "/v1/reload", "").status == 200)
        #expect(await send(router, "POST", "/v1/reload", "{}").status == 200)
        let answer = await send(router, "POST", "/v1/reload", #"{"force": true}"#)
        #expect(answer.status == 400 && answer.message.contains("takes no body"), "\(answer)")
    }

    @Test func absentListsOfANewProfileAreEmpty() async throws {
        let router = try await router()
        let created = await send(router, "POST", "/v1/profiles", #"{"name": "bare"}"#)
        #expect(created.status == 201, "\(created)")
        let profile = try #require(created.decode(ProfileInfo.self), "\(created)")
        #expect(profile.domains == [] && profile.strict == false)
    }

    @Test func aNumberTooLargeForItsFieldIsOutOfRangeNotBadJSON() async throws {
        let router = try await router()
        let answer = await send(router, "POST", "/v1/pomodoro", #"{"profile": "social", "longEvery": 1e24}"#)
        #expect(answer.status == 400)
        #expect(answer.message.contains("longEvery") && answer.message.contains("out of range"), "\(answer.message)")
        #expect(!answer.message.contains("not valid JSON"))
    }

    @Test(arguments: ["a.example\n0.0.0.0 x", "a.example\r\nb.example", "a.exa\u{0}mple", "a.example\u{85}b"])
    func aDomainWithAControlCharacterIsRefusedNotCut(domain: String) async throws {
        let router = try await router()
        let body = String(decoding: try JSONEncoder().encode(CreateProfileRequest(name: "cut", domains: [domain])), as: UTF8.self)
        let answer = await send(router, "POST", "/v1/profiles", body)
        #expect(answer.status == 400, "\(answer)")
        #expect(answer.message.contains("control character"), "\(answer.message)")
        #expect(!answer.message.unicodeScalars.contains { $0.value < 0x20 }, "the message carries the raw character")
        #expect(await send(router, "GET", "/v1/profiles/cut", "").status == 404)
    }

    @Test(arguments: ["\u{1B}[2Jgone", "line\u{85}next", "a\u{2028}b", "nul\u{0}cut", "\u{202E}txt.exe", "tab\there"])
    func displayTextWithControlCharactersIsRefused(text: String) async throws {
        let router = try await router()
        for request in [
            CreateProfileRequest(name: "shown", displayName: text), CreateProfileRequest(name: "shown", description: text),
        ] {
            let body = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
            let answer = await send(router, "POST", "/v1/profiles", body)
            #expect(answer.status == 400, "\(answer)")
            #expect(answer.message.contains("control character"), "\(answer.message)")
        }
        #expect(await send(router, "POST", "/v1/profiles", #"{"name": "shown"}"#).status == 201)
        let body = String(decoding: try JSONEncoder().encode(UpdateProfileRequest(description: text)), as: UTF8.self)
        let answer = await send(router, "PATCH", "/v1/profiles/shown", body)
        #expect(answer.status == 400 && answer.message.contains("control character"), "\(answer)")
        let shown = try #require(await send(router, "GET", "/v1/profiles/shown", "").decode(ProfileInfo.self))
        #expect(shown.description == nil)
    }

    @Test func aNulInAProfileFileIsReportedWithItsLine() async throws {
        let router = try await router()
        try scratch.write(
            "etc/simplylock/profiles.d/nul.toml", "name = \"nul\"\ndomains = [\"a.example\"]\ndescription = \"before\u{0}after\"\n")
        let answer = await send(router, "POST", "/v1/reload", "")
        let problems = try #require(answer.decode(ReloadResponse.self), "\(answer)").problems
        #expect(problems.contains { $0.contains("nul.toml:3") && $0.contains("U+0000") }, "\(problems)")
        #expect(await send(router, "GET", "/v1/profiles/nul", "").status == 404)
    }

    @Test func anEscapedControlCharacterInAProfileFileIsReported() async throws {
        let router = try await router()
        try scratch.write("etc/simplylock/profiles.d/esc.toml", "name = \"esc\"\ndomains = []\ndisplay_name = \"x\\u001B[31mred\"\n")
        let answer = await send(router, "POST", "/v1/reload", "")
        let problems = try #require(answer.decode(ReloadResponse.self), "\(answer)").problems
        #expect(problems.contains { $0.contains("esc.toml:3") && $0.contains("display_name") }, "\(problems)")
    }
}
