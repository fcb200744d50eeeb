import ArgumentParser
import Foundation
import Glibc
import LockClient
import LockCore
import LockProtocol

/// `lockctl unlock PROFILE|SESSION`: emergency access to a strict block.
struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "End a strict block early, with friction (emergency access).",
        discussion: """
            Asks the daemon for a challenge: wait out the countdown (leaving restarts it), then type the random \
            text shown (without the dots between its groups; pasting is refused). Each early end counts against the weekly \
            allowance ([friction] emergency_per_week in the profile or simplylockd.toml; 0 means never). Reads the \
            answer from the terminal, or one line from standard input when that is not a terminal.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profile name or session id of the strict block.")
    var reference: String

    /// Bracketed paste: a terminal wraps pasted text in these, so a paste can be told from typing.
    static let pasteStart = "\u{1B}[200~"

    func run() async throws {
        let reference = self.reference
        let first = try await global.call { try await $0.unlock(reference) }
        guard let challenge = first.challenge else { throw CommandFailure(code: ExitCodes.failure, "the daemon sent no challenge") }
        let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        let session = first.session
        print("\(session.profile) is a strict block with \(TextFormat.duration(seconds: session.remainingSeconds)) left.")
        print(
            "Emergency access: \(first.allowance.used) of \(first.allowance.allowed) early end\(first.allowance.allowed == 1 ? "" : "s") used in the last 7 days."
        )
        // From the wait as the daemon counts it (dates on the wire are whole seconds), with a
        // little margin for the way back.
        try await countdown(until: Date().addingTimeInterval(challenge.waitSeconds + 0.2), interactive: interactive)
        while true {
            print("Type this text (without the · separators):\n\n    \(challenge.display)\n")
            guard let typed = readAnswer(interactive: interactive) else {
                throw CommandFailure(code: ExitCodes.refused, "no answer; nothing was changed")
            }
            if typed.contains(Self.pasteStart) {
                throw CommandFailure(
                    code: ExitCodes.refused, "the text was pasted; type it instead (start again with `lockctl unlock \(reference)`)")
            }
            do {
                let done = try await global.client.unlock(reference, challenge: challenge.id, answer: typed)
                if try global.printJSON(done) { return }
                print(
                    "\(done.session.profile) ended early (emergency access); \(done.allowance.used) of \(done.allowance.allowed) used in the last 7 days."
                )
                return
            } catch let error as ClientError {
                if case .api(let api) = error, api.message.contains("more tr") {
                    FileHandle.standardError.write(Data("lockctl: \(api.message)\n".utf8))
                    continue
                }
                throw CommandFailure(error)
            }
        }
    }

    /// Waits until `instant`, redrawing the time left in place on a terminal.
    private func countdown(until instant: Date, interactive: Bool) async throws {
        var left = instant.timeIntervalSinceNow
        guard left > 0 else { return }
        if !interactive { print("Waiting \(Int(left.rounded(.up)))s before the text may be typed…") }
        while left > 0 {
            if interactive {
                let seconds = Int(left.rounded(.up))
                let text = String(format: "%d:%02d", seconds / 60, seconds % 60)
                FileHandle.standardOutput.write(
                    Data("\r\u{1B}[2KWait \(text) before typing (Ctrl-C leaves; leaving restarts the wait)".utf8))
            }
            try await Task.sleep(for: .milliseconds(Int(min(left, 0.25) * 1000) + 1))
            left = instant.timeIntervalSinceNow
        }
        if interactive { FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// One line from the terminal with bracketed paste on (so a paste shows), or from stdin.
    private func readAnswer(interactive: Bool) -> String? {
        guard interactive else { return readLine(strippingNewline: true) }
        FileHandle.standardOutput.write(Data("\u{1B}[?2004h> ".utf8))
        // Ctrl-C while bracketed paste is on must not leave the terminal in that mode.
        signal(SIGINT) { _ in
            let reset = Array("\u{1B}[?2004l\n".utf8)
            _ = reset.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            _exit(130)
        }
        defer {
            FileHandle.standardOutput.write(Data("\u{1B}[?2004l".utf8))
            signal(SIGINT, SIG_DFL)
        }
        return readLine(strippingNewline: true)
    }
}
