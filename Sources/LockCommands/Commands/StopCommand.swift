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
            stopped until the schedule's next interval. With --json: {"sessions": [...], "stillBlocked": [...]}.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profile names or session ids.", completion: Completions.sessions)
    var references: [String] = []

    @Flag(help: "Stop every block that may be stopped; strict ones and the Pomodoro's are left (exit 5 if any is left).")
    var all = false

    func validate() throws {
        if all, !references.isEmpty { throw ValidationError("give profiles or --all, not both") }
        if !all, references.isEmpty { throw ValidationError("missing <references> (a profile or session id), or --all") }
    }

    func run() async throws {
        var stopped: [SessionInfo] = []
        var failure: CommandFailure?
        var targets = references
        if all {
            let status = try await global.call { try await $0.status() }
            targets = status.sessions.filter { !$0.strict && $0.origin != "pomodoro" }.map(\.id)
            for session in status.sessions where session.strict || session.origin == "pomodoro" {
                let left = CommandFailure(
                    code: ExitCodes.refused,
                    "\(session.profile) is \(session.strict ? "a strict block" : "the Pomodoro's block") until \(TextFormat.clock(session.endsAt)); left running",
                    hint: session.strict ? nil : "end the Pomodoro with `lockctl pomodoro stop`", errorCode: "refused")
                ErrorOutput.print(left, json: global.json)
                failure = failure ?? left
            }
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
        if try !global.printJSON(SessionList(sessions: stopped, stillBlocked: still)) {
            for session in stopped { print("\(session.profile) block stopped (session \(session.id))") }
            for session in still {
                let by = session.origin == "pomodoro" ? "the Pomodoro timer" : session.origin == "manual" ? "another block" : session.origin
                print("\(session.profile) stays blocked by \(by) until \(TextFormat.clock(session.endsAt)) (session \(session.id))")
            }
            if all, stopped.isEmpty, failure == nil { print("nothing to stop") }
        }
        if let failure {
            if targets.count == 1, !all { throw failure }
            throw ExitCode(failure.code)
        }
    }
}
