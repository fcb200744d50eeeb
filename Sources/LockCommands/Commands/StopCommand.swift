import ArgumentParser
import LockClient
import LockProtocol

/// `lockctl stop PROFILE|SESSION…`, `lockctl stop --all`.
struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop blocks early (refused for strict blocks).",
        discussion: """
            A profile name stops that profile's blocks except the Pomodoro timer's (stop that with \
            `lockctl pomodoro stop`); a session id stops that block. A block started by a schedule stays \
            stopped until the schedule's next interval. With --json: {"sessions": [...], "stillBlocked": [...]}, and \
            with --all also "left": the strict and Pomodoro blocks it leaves running.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profile names or session ids.", completion: Completions.sessions)
    var references: [String] = []

    @Flag(
        help: """
            Stop every block that may be stopped; strict ones and the Pomodoro's are left running and listed \
            (exit 0: that is what --all means; `lockctl status` shows what stays).
            """)
    var all = false

    func validate() throws {
        if all, !references.isEmpty { throw ValidationError("give profiles or --all, not both") }
        if !all, references.isEmpty { throw ValidationError("missing <references> (a profile or session id), or --all") }
    }

    func run() async throws {
        var stopped: [SessionInfo] = []
        var failure: CommandFailure?
        var targets = references
        // --all means every block that may be stopped: strict blocks and the Pomodoro's are
        // left as the rules say, which is the command doing what it says, not a failure.
        var left: [SessionInfo] = []
        if all {
            let status = try await global.call { try await $0.status() }
            targets = status.sessions.filter { !$0.strict && $0.origin != "pomodoro" }.map(\.id)
            left = status.sessions.filter { $0.strict || $0.origin == "pomodoro" }
        }
        for reference in targets {
            do {
                stopped += try await global.call { try await $0.stop(reference) }
            } catch let error as CommandFailure {
                if targets.count > 1 || all { ErrorOutput.print(error, json: global.json) }
                failure = failure ?? error
            }
        }
        if let failure, stopped.isEmpty, !all, targets.count == 1 { throw failure }
        // Another session may still block what was stopped (a Pomodoro of the same profile).
        let remaining = stopped.isEmpty ? [] : (try? await global.client.status().sessions) ?? []
        let stoppedProfiles = Set(stopped.map(\.profile))
        let still = remaining.filter { stoppedProfiles.contains($0.profile) }
        if try !global.printJSON(SessionList(sessions: stopped, stillBlocked: still, left: all ? left : nil)) {
            for session in stopped { print("\(session.profile) block stopped (session \(session.id))") }
            for session in left {
                let what = session.strict ? "a strict block" : "the Pomodoro's block (`lockctl pomodoro stop` ends it)"
                print("\(session.profile) left running: \(what) until \(TextFormat.clock(session.endsAt)) (session \(session.id))")
            }
            for session in still where !left.contains(where: { $0.id == session.id }) {
                let by = session.origin == "pomodoro" ? "the Pomodoro timer" : session.origin == "manual" ? "another block" : session.origin
                print("\(session.profile) stays blocked by \(by) until \(TextFormat.clock(session.endsAt)) (session \(session.id))")
            }
            if all, stopped.isEmpty, left.isEmpty, failure == nil { print("nothing to stop") }
        }
        if let failure {
            if targets.count == 1, !all { throw failure }
            throw ExitCode(failure.code)
        }
    }
}
