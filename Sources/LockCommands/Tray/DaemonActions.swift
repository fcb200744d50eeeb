import Foundation
import LockClient
import LockProtocol

/// Carries out what a tray menu item or a notification's button asks, through the control API
/// as the user running `lockctl notify`: the daemon decides what they may do (a strict block is
/// not stopped, a user outside the `simplylock` group changes nothing), and a refusal is shown
/// as a notification with the daemon's reason.
struct DaemonActions: Sendable {
    let client: LockClient
    /// The length of a block the menu starts, and what Extend adds, in seconds.
    let length: Int
    let extendBy: Int
    /// `lockctl ui` with the options that reach the same daemon.
    let openCommand: [String]
    /// Shows a failure: summary, body.
    let report: @Sendable (String, String) -> Void

    func perform(_ action: TrayModel.Action) {
        switch action {
        case .start(let profile):
            run("Could not block \(profile)") { client in
                _ = try await client.start(StartRequest(profile: profile, seconds: Double(length)))
            }
        case .startPomodoro(let profile):
            run("Could not start a Pomodoro for \(profile)") { client in
                _ = try await client.startPomodoro(PomodoroStartRequest(profile: profile))
            }
        case .stopPomodoro:
            run("Could not stop the Pomodoro") { client in _ = try await client.pomodoro(.stop) }
        case .stop(let session, let profile):
            run("Could not stop \(profile)") { client in _ = try await client.stop(session) }
        case .openApp:
            openApp()
        }
    }

    /// A notification's Extend.
    func extend(session: String) {
        let seconds = Double(extendBy)
        run("Could not extend the block") { client in _ = try await client.extend(session, seconds: seconds) }
    }

    private func run(_ failure: String, _ body: @escaping @Sendable (LockClient) async throws -> Void) {
        let client = client
        let report = report
        Task.detached {
            do { try await body(client) } catch { report(failure, "\(error)") }
        }
    }

    /// Starts `lockctl ui`, which keeps serving the app while it is open. A start that fails
    /// (it exits at once) is reported with what it printed.
    private func openApp() {
        let command = openCommand
        let report = report
        Thread.detachNewThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            do { try process.run() } catch {
                report("Could not open SimplyLock", "\(command.joined(separator: " ")): \(error.localizedDescription)")
                return
            }
            // Read what it prints while it runs, so it never waits on a full pipe.
            let printed = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus != 0 else { return }
            let text = String(decoding: printed.prefix(2048), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            report(
                "Could not open SimplyLock",
                "`\(command.joined(separator: " "))` exited with status \(process.terminationStatus)" + (text.isEmpty ? "." : ": \(text)"))
        }
    }
}
