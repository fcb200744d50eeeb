import Foundation
import Glibc
import TestSupport

/// A scratch root directory for one test: `etc/hosts` with user content, everything else
/// created by the daemon. Removed when the test ends.
final class TestRoot: @unchecked Sendable {
    let path: String

    init(hosts: String = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n# user comment\n") throws {
        let template = NSTemporaryDirectory() + "simplylock-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw TestFailure("mkdtemp failed") }
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Other users (the permission test runs lockctl as nobody) must reach the socket.
        chmod(path, 0o755)
        try FileManager.default.createDirectory(atPath: path + "/etc", withIntermediateDirectories: true)
        try Data(hosts.utf8).write(to: URL(fileURLWithPath: hostsPath))
    }

    var hostsPath: String { path + "/etc/hosts" }
    var socketPath: String { path + "/run/simplylock/lockctl.sock" }
    var statePath: String { path + "/var/lib/simplylock/state.sqlite" }

    func hosts() -> String { (try? String(contentsOfFile: hostsPath, encoding: .utf8)) ?? "" }
    func hostsBytes() -> [UInt8] { (FileManager.default.contents(atPath: hostsPath)).map(Array.init) ?? [] }

    func write(_ relative: String, _ text: String) throws {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
