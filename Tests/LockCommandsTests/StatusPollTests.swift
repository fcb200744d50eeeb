import Foundation
import LockProtocol
import Testing

@testable import LockCommands

/// `lockctl status [--json]` answered before the argument parser: which command lines take
/// that path, and that its JSON is byte for byte what the full path prints.
@Suite struct StatusPollTests {
    @Test func onlyPlainStatusCallsTakeTheShortPath() {
        typealias Request = StatusPoll.Request
        func read(_ arguments: [String]) -> [String]? {
            Request(arguments).map { [$0.root, $0.socket ?? "-", $0.json ? "json" : "text"] }
        }
        #expect(read(["status"]) == ["/", "-", "text"])
        #expect(read(["--json", "status"]) == ["/", "-", "json"])
        #expect(read(["status", "--json", "--root", "/tmp/r"]) == ["/tmp/r", "-", "json"])
        #expect(read(["--root=/tmp/r", "status", "--socket=/run/s.sock"]) == ["/tmp/r", "/run/s.sock", "text"])
        for refused in [
            [], ["status", "--watch"], ["status", "--help"], ["status", "-h"], ["status", "status"], ["--json"],
            ["status", "--root"], ["status", "--root", "--json"], ["status", "--root="], ["status", "--json", "--json"],
            ["status", "--root", "/a", "--root", "/b"], ["start", "news"], ["status", "--json=yes"], ["status", "extra"],
            ["status", "--"], ["help", "status"],
        ] {
            #expect(Request(refused) == nil, "\(refused)")
        }
    }

    @Test func indentingTheCompactAnswerPrintsWhatDecodingAndEncodingAgainPrints() throws {
        var generator = SeededGenerator(seed: 16)
        for _ in 0..<400 {
            let value = JSONValue.random(depth: 0, using: &generator)
            let compact = try API.makeEncoder().encode(value)
            #expect(JSONText.indent(compact: Array(compact)) == JSONText.pretty(value), "\(String(decoding: compact, as: UTF8.self))")
        }
    }

    @Test func aStatusAnswerIndentsLikeItsDecodedForm() throws {
        // As simplylockd answered `GET /v1/status` with the shipped social profile started.
        let wire = #"""
            {"blockedNames":104,"enforcers":[{"applied":true,"details":{"alsoListed":"use-application-dns.net","maxNames":20000,\#
            "path":"/tmp/pf-3rFF/etc/hosts","restores":0,"write":"renamed"},"elements":105,"lastApplied":"2026-11-23T02:23:49Z",\#
            "name":"hosts","state":"ok"}],"notices":[],"now":"2026-11-23T02:23:49Z","sessions":[{"apps":[],"blockedNames":104,\#
            "endsAt":"2026-11-23T03:08:49Z","id":"7696361fecfb","missingApps":["discord","com.discordapp.Discord","slack"],\#
            "origin":"manual","profile":"social","remainingSeconds":2700,"startedAt":"2026-11-23T02:23:49Z","strict":false,\#
            "target":["local"]}],"version":"0.1.0"}
            """#
        guard let status = try? API.makeDecoder().decode(StatusResponse.self, from: Data(wire.utf8)) else {
            Issue.record("the sample no longer decodes as a StatusResponse; update it from `curl --unix-socket … /v1/status`")
            return
        }
        let compact = try API.makeEncoder().encode(status)
        #expect(String(decoding: compact, as: UTF8.self) == wire, "the daemon's bytes are the encoder's")
        #expect(JSONText.indent(compact: Array(compact)) == JSONText.pretty(status))
    }
}

/// Any JSON value, encoded with the API's encoder (keys sorted).
private enum JSONValue: Encodable {
    case object([String: JSONValue]), array([JSONValue]), string(String), int(Int), double(Double), bool(Bool), null

    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .object(let members): try single.encode(members)
        case .array(let elements): try single.encode(elements)
        case .string(let text): try single.encode(text)
        case .int(let number): try single.encode(number)
        case .double(let number): try single.encode(number)
        case .bool(let flag): try single.encode(flag)
        case .null: try single.encodeNil()
        }
    }

    /// Strings with the characters the layout turns on: quotes, backslashes, brackets, commas, colons.
    static let pieces = ["a", "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "\t", "é", "日本", "/", "\\\"", "\u{1}", "🔒"]

    static func random(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let kind = Int.random(in: 0..<(depth > 3 ? 5 : 8), using: &generator)
        func text() -> String {
            (0..<Int.random(in: 0..<6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
        switch kind {
        case 0: return .string(text())
        case 1: return .int(Int.random(in: -1_000_000...1_000_000, using: &generator))
        case 2: return .double(Double.random(in: -1e6...1e6, using: &generator))
        case 3: return Bool.random(using: &generator) ? .bool(true) : .null
        case 4: return .bool(false)
        case 5, 6:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<4, using: &generator) { members[text()] = random(depth: depth + 1, using: &generator) }
            return .object(members)
        default:
            return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in random(depth: depth + 1, using: &generator) })
        }
    }
}

/// SplitMix64: the same documents on every run.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
