import Foundation
import LockProtocol
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
        try waitUntil("the event stream to say hello", timeout: 20) { try events().contains { $0.type == .hello } }
    }

    /// Every event received so far, oldest first.
    func events() throws -> [Event] { try Self.events(inFile: path) }

    /// The `details.event` of every `pomodoro.phase` event so far (`phaseStarted`, …).
    func pomodoroEvents() throws -> [String] {
        try events().filter { $0.type == .pomodoroPhase }.compactMap { $0.details?["event"] }
    }

    /// The events of the whole lines `lockctl events --json` wrote to `path`, decoded as the
    /// API's `Event`: a line that is not one fails the test. A last line without its newline
    /// is still being written and is left for the next look.
    static func events(inFile path: String) throws -> [Event] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        let decoder = API.makeDecoder()
        return try lines.filter { !$0.isEmpty }.map { line in
            do {
                return try decoder.decode(Event.self, from: Data(line.utf8))
            } catch {
                throw TestFailure("not an event: \(line): \(error)")
            }
        }
    }
}
