import Foundation
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport

@testable import LockDaemon

/// A router's answer read through the API's own wire types, so a body that a client could not
/// decode fails the test instead of reading as an empty dictionary.
struct RouterReply: CustomStringConvertible {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]

    /// The error the body carries, if it is an error body.
    var error: APIError? { try? API.makeDecoder().decode(APIErrorBody.self, from: Data(body)).error }
    /// The error's message, empty when the body is no error.
    var message: String { error?.message ?? "" }

    /// The body as `type`, nil when it is not one.
    func decode<T: Decodable>(_ type: T.Type) -> T? { try? API.makeDecoder().decode(type, from: Data(body)) }

    var description: String { "\(status) \(String(decoding: body, as: UTF8.self))" }
}

extension Router {
    /// Sends raw method, target and body, as any client, well-behaved or not, could.
    func reply(_ method: String, _ uri: String, body: String = "", peer: PeerCredentials) async -> RouterReply {
        let response = await handle(APIRequest(methodName: method, uri: uri, body: Array(body.utf8), peer: peer))
        guard case .json(let status, let bytes, let headers) = response else {
            return RouterReply(status: response.status, headers: [], body: [])
        }
        return RouterReply(status: status, headers: headers, body: bytes)
    }
}

/// A daemon in-process under a scratch root with a fake enforcer, driven through its route table
/// by root, as the suites about request bodies and profile edits use it.
struct InProcessDaemon {
    let scratch: Scratch
    let clock = ManualClock()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func router() async throws -> Router {
        try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [FakeEnforcer()]).core.router()
    }

    func send(_ router: Router, _ method: String, _ uri: String, _ body: String = "") async -> RouterReply {
        await router.reply(method, uri, body: body, peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
    }
}
