import Foundation
import LockProtocol
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
        // Each whole line must decode as the API's Event: one JSON object per line.
        func lines() throws -> [Event] { try EventRecorder.events(inFile: output) }
        try waitUntil("the hello event") { try lines().contains { $0.type == .hello } }
        #expect(try daemon.lockctl("start", "news", "1s").status == 0)
        try waitUntil("session.started and session.ended") {
            let types = try lines().map(\.type)
            return types.contains(.sessionStarted) && types.contains(.sessionEnded)
        }
        let ended = try #require(try lines().first { $0.type == .sessionEnded })
        #expect(ended.reason == "expired")
        #expect(ended.session?.profile == "news")
        // The follower is still connected and the daemon still serves others.
        #expect(follower.isRunning)
        #expect(try daemon.lockctl("status").status == 0)
    }
}
