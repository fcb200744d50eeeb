import Foundation
import TestSupport

/// `lockctl events --json` running in the background against a test daemon, its output kept
/// in a file so tests can look at the events published so far.
final class EventRecorder: @unchecked Sendable {
    private let follower: ChildProcess
    private let path: String

    /// Starts following the daemon's events and waits until the stream is live.
    init(daemon: DaemonProcess) throws {
        path = daemon.root.path + "/events-\(UUID().uuidString).jsonl"
        follower = try ChildProcess(
            Binaries.lockctl, ["events", "--json", "--root", daemon.root.path],
            environment: ProcessRunner.environment(), stdout: .file(path))
        try waitUntil("the event stream to say hello", timeout: 20) { try events().contains { $0["type"] as? String == "hello" } }
    }

    /// Every event received so far, oldest first.
    func events() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The `details.event` of every `pomodoro.phase` event so far (`phaseStarted`, …).
    func pomodoroEvents() throws -> [String] {
        try events().filter { $0["type"] as? String == "pomodoro.phase" }
            .compactMap { ($0["details"] as? [String: Any])?["event"] as? String }
    }
}
