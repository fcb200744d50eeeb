// The baseline of `lockctl status` in scripts/bench-perf.sh: a statically linked Swift program
// that encodes a status-shaped value with Foundation's JSONEncoder and prints one line.
import Foundation

struct Status: Encodable {
    var version = "0.1.0"
    var now = Date()
    var sessions: [String] = []
    var blockedNames = 0
    var enforcers: [String] = []
    var notices: [String] = []
}

let encoder = JSONEncoder()
encoder.dateEncodingStrategy = .iso8601
print(String(decoding: try! encoder.encode(Status()), as: UTF8.self))
