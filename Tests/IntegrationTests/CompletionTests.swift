import Foundation
import LockProtocol
import TestSupport
import Testing

/// The generated bash completion, run the way bash runs it (`_lockctl CMD CUR PREV` with
/// COMP_WORDS set), against a live daemon: names come from the daemon, not only subcommands.
@Suite("Shell completions", .enabled(if: TestTools.which("bash") != nil, "bash is not installed"))
struct CompletionTests {
    static func completions(_ script: String, _ words: [String]) throws -> [String] {
        // The word being completed is the last one; the function reads COMP_* and prints COMPREPLY.
        let quoted = words.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
        let program = """
            source '\(script)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            _lockctl lockctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try ProcessRunner.run(
            "/bin/bash", ["-c", program],
            environment: ["PATH": Binaries.directory + ":/usr/bin:/bin"])
        #expect(result.status == 0, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("bash completes profiles, sessions, schedules and services from the running daemon")
    func bashNamesFromTheDaemon() throws {
        let root = try TestRoot()
        let script = root.path + "/lockctl.bash"
        let generated = try ProcessRunner.run(Binaries.lockctl, ["--generate-completion-script", "bash"])
        try generated.stdout.write(toFile: script, atomically: true, encoding: .utf8)

        // Without a daemon: commands and options still complete, names do not (and nothing hangs).
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "sta"]).sorted() == ["start", "status"])
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "start", ""]).isEmpty)

        let daemon = try DaemonProcess(root: root)
        try daemon.lockctl("profiles", "create", "mine", "--domain", "example.com")
        try daemon.lockctl("start", "news", "10m")
        try daemon.lockctl("schedules", "add", "mornings", "--profile", "news", "--days", "mon", "--from", "09:00", "--to", "10:00")

        let profiles = try Self.completions(script, ["lockctl", "--root", root.path, "start", ""])
        #expect(Set(["deep-work", "news", "social", "mine"]).isSubset(of: profiles), "\(profiles)")
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "start", "mi"]) == ["mine"])
        // Options after the command find the daemon too.
        let sessions = try Self.completions(script, ["lockctl", "stop", "--root", root.path, ""])
        let active = try #require(try daemon.decode(StatusResponse.self, "status").sessions.first?.id)
        #expect(sessions.contains("news") && sessions.contains(active) && !sessions.contains("social"), "\(sessions)")
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "schedules", "edit", ""]) == ["mornings"])
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "profiles", "add-service", "mine", "you"]) == ["youtube"])
        // Only custom profiles can be changed.
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "profiles", "add-domain", ""]) == ["mine"])
        #expect(try Self.completions(script, ["lockctl", "--root", root.path, "services", "twi"]) == ["twitch"])
    }

    @Test("zsh and fish scripts ask the daemon too")
    func otherShells() throws {
        for shell in ["zsh", "fish"] {
            let script = try ProcessRunner.run(Binaries.lockctl, ["--generate-completion-script", shell]).stdout
            #expect(script.contains("---completion"), "\(shell) completes no names from the daemon")
        }
    }
}
