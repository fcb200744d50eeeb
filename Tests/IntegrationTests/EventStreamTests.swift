import Foundation
import TestSupport
import Testing

@Suite("The event stream")
struct EventStreamTests {
    @Test("lockctl events --json prints one JSON object per line as blocks start and end")
    func followsEvents() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let output = root.path + "/events.out"
        let follower = try ChildProcess(
            Binaries.lockctl, ["events", "--json", "--root", root.path],
            environment: ProcessRunner.environment(), stdout: .file(output))
        func lines() -> [[String: Any]] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        try waitUntil("the hello event") { lines().contains { $0["type"] as? String == "hello" } }
        #expect(try daemon.lockctl("start", "news", "1s").status == 0)
        try waitUntil("session.started and session.ended") {
            let types = lines().compactMap { $0["type"] as? String }
            return types.contains("session.started") && types.contains("session.ended")
        }
        let ended = try #require(lines().first { $0["type"] as? String == "session.ended" })
        #expect(ended["reason"] as? String == "expired")
        #expect((ended["session"] as? [String: Any])?["profile"] as? String == "news")
        // The follower is still connected and the daemon still serves others.
        #expect(follower.isRunning)
        #expect(try daemon.lockctl("status").status == 0)
    }
}
