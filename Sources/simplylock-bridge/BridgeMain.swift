import Foundation
import Glibc
import LockClient
import LockProtocol
import Synchronization

// The browser companion's native messaging host: the browser starts it as the user and talks
// to it on stdin/stdout (each message a 32-bit native-order length and that many bytes of JSON);
// it relays a fixed set of requests to the daemon's socket as that user, so the daemon's
// peer-credential authorisation decides, and passes the event stream on.

/// Messages larger than this from the browser are refused (the extension sends small ones);
/// the browser refuses more than 1 MiB from a host.
let maxIncoming = 64 << 10
let maxOutgoing = 1 << 20

let socketPath: String = {
    if let value = getenv(API.socketEnvironmentVariable).map({ String(cString: $0) }), !value.isEmpty { return value }
    return "/run/simplylock/lockctl.sock"
}()
let client = LockClient(socketPath: socketPath)
let output = Mutex<Void>(())

/// Writes one message to the browser; a message too large for it becomes an error message.
func send(_ json: [UInt8]) {
    var bytes = json
    if bytes.count > maxOutgoing { bytes = Array(#"{"error":"answer too large for the browser"}"#.utf8) }
    var length = UInt32(bytes.count)
    output.withLock { _ in
        withUnsafeBytes(of: &length) { writeAll($0) }
        bytes.withUnsafeBytes { writeAll($0) }
    }
}

func writeAll(_ buffer: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < buffer.count {
        let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0, errno == EINTR { continue }
        // The browser closed the pipe: nothing is listening any more.
        guard written > 0 else { exit(0) }
        offset += written
    }
}

func readExactly(_ count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    var offset = 0
    while offset < count {
        let got = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress! + offset, count - offset) }
        if got < 0, errno == EINTR { continue }
        guard got > 0 else { return nil }
        offset += got
    }
    return bytes
}

func jsonString(_ text: String) -> String {
    (try? String(decoding: JSONEncoder().encode(text), as: UTF8.self)) ?? "\"\""
}

/// The answer to request `id`: the daemon's status and JSON body, or the bridge's own error.
func answer(id: Int, _ result: Result<(status: Int, body: [UInt8]), ClientError>) {
    switch result {
    case .success(let (status, body)):
        send(Array("{\"id\":\(id),\"status\":\(status),\"body\":".utf8) + (body.isEmpty ? Array("null".utf8) : body) + Array("}".utf8))
    case .failure(let error):
        send(Array("{\"id\":\(id),\"status\":0,\"error\":\(jsonString("\(error)"))}".utf8))
    }
}

/// One request of the extension: `{"id": 1, "op": "check", "url": …, "body": {…}}`.
struct Request: Sendable {
    var id: Int
    var op: String
    var url: String?
    var from: String?
    var session: String?
    /// The body to pass on, as JSON.
    var body: [UInt8]?

    init?(_ message: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any],
            let id = object["id"] as? Int, let op = object["op"] as? String
        else { return nil }
        self.id = id
        self.op = op
        url = object["url"] as? String
        from = object["from"] as? String
        session = object["session"] as? String
        body = object["body"].flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map { Array($0) }
    }
}

/// The requests the extension may make: what it needs, nothing more (no profile edits, no
/// starting or stopping blocks).
func handle(_ request: Request) {
    let result: Result<(status: Int, body: [UInt8]), ClientError>
    do throws(ClientError) {
        switch request.op {
        case "status": result = .success(try client.relay(Endpoints.status))
        case "check": result = .success(try client.relay(Endpoints.check, query: ["url": request.url ?? ""]))
        case "insights":
            result = .success(try client.relay(Endpoints.insights, query: request.from.map { ["from": $0] } ?? [:]))
        case "goals": result = .success(try client.relay(Endpoints.goals))
        case "unlock":
            result = .success(try client.relay(Endpoints.unlockSession, [request.session ?? ""], body: request.body ?? Array("{}".utf8)))
        case "usage": result = .success(try client.relay(Endpoints.reportUsage, body: request.body ?? Array("{}".utf8)))
        case "attempt": result = .success(try client.relay(Endpoints.browserAttempt, body: request.body ?? Array("{}".utf8)))
        case "hello": result = .success(try client.relay(Endpoints.browserHello, body: request.body ?? Array("{}".utf8)))
        default:
            send(Array("{\"id\":\(request.id),\"status\":0,\"error\":\(jsonString("unknown op \(request.op)"))}".utf8))
            return
        }
    } catch {
        result = .failure(error)
    }
    answer(id: request.id, result)
}

/// Passes the daemon's events on as `{"event": …}`, reconnecting after the daemon restarts;
/// `{"connected": true|false}` tells the extension to read the state again.
func followEvents() {
    while true {
        do {
            send(Array(#"{"connected":true}"#.utf8))
            try client.followEventLines { line in send(Array(#"{"event":"#.utf8) + line + Array("}".utf8)) }
        } catch {
            send(Array("{\"connected\":false,\"error\":\(jsonString("\(error)"))}".utf8))
        }
        sleep(2)
    }
}

signal(SIGPIPE, SIG_IGN)
Thread.detachNewThread { followEvents() }
while let header = readExactly(4) {
    let length = Int(header.withUnsafeBytes { $0.load(as: UInt32.self) })
    guard length <= maxIncoming, let message = readExactly(length) else {
        send(Array(#"{"error":"message too large"}"#.utf8))
        exit(1)
    }
    guard let request = Request(message) else {
        send(Array(#"{"error":"not a request"}"#.utf8))
        continue
    }
    // Each request on its own thread: an unlock's answer must not wait behind a slow insights.
    Thread.detachNewThread { handle(request) }
}
