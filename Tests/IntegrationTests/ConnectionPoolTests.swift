import Foundation
import Glibc
import TestSupport
import Testing

/// The control socket as a shared resource: nine uids holding every connection they may must not
/// lock out root or a reader of a tenth uid; the refused are told which limit they met, and the
/// log says so once per uid, not once per connection.
@Suite("Connection pools of the control socket", .serialized)
struct ConnectionPoolTests {
    /// What `Tests/Scripts/connection_pools.py` prints: its own report, not an API type. A holder
    /// that failed reports only its `error`.
    struct Report: Decodable {
        struct Holder: Decodable {
            var uid: Int?
            var held: Int?
            var refused: [String]?
            var refusedCount: Int?
            var error: String?
        }
        struct Reader: Decodable {
            var status: String?
            var message: String?
        }
        var holders: [Holder]
        var reader: Reader
        var root: String
    }

    static let notRoot = TestTools.missing { getuid() == 0 ? nil : "needs root to act as other users" }

    @Test(
        "nine uids × 34 idle connections: a tenth uid and root still get in; refusals are logged once per uid",
        .enabled(if: notRoot == nil, "\(notRoot ?? "")"))
    func nineUidsDoNotLockOutOthers() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let result = try ProcessRunner.run(
            "/usr/bin/env", ["python3", TestTools.repository + "/Tests/Scripts/connection_pools.py", root.socketPath, "9", "34"],
            timeout: 120)
        #expect(result.status == 0, "\(result)")
        let report = try result.decode(Report.self)
        let holders = report.holders
        #expect(holders.count == 9)
        let held = holders.compactMap(\.held)
        #expect(held.allSatisfy { $0 <= 32 }, "a uid held more than its share: \(held)")
        #expect(held.reduce(0, +) <= 256, "\(held)")
        let messages = holders.flatMap { $0.refused ?? [] }
        #expect(messages.contains { $0.contains("from this user (32 at most)") }, "\(messages)")
        #expect(messages.contains { $0.contains("connections from readers") }, "\(messages)")
        let reader = report.reader
        #expect(reader.status?.hasPrefix("HTTP/1.1 200") == true, "a reader of a tenth uid was locked out: \(reader)")
        #expect(report.root.hasPrefix("HTTP/1.1 200"), "root was locked out: \(report)")

        // One line per refused uid, however many connections it had refused.
        let refusedCount = holders.compactMap(\.refusedCount).reduce(0, +)
        let lines = daemon.log().split(separator: "\n").filter { $0.contains("connection refused") }
        let refusedUids = holders.filter { ($0.refusedCount ?? 0) > 0 }.count
        #expect(refusedCount > refusedUids, "the scenario refused too little to tell aggregation apart: \(refusedCount)")
        // The daemon may refuse a uid whose 503 reached its client after the client stopped
        // looking (0.3 s of quiet): count the uids the log names, each must be named once.
        let loggedUids = lines.compactMap { line in line.split(separator: " ").first { $0.hasPrefix("uid=") } }
        #expect(
            loggedUids.count == lines.count && Set(loggedUids).count == lines.count && lines.count >= refusedUids,
            "\(lines.count) log lines for \(refusedCount) refusals of \(refusedUids) uids:\n\(lines.prefix(20).joined(separator: "\n"))")
        #expect(try daemon.lockctl("status").status == 0)
    }
}
