import ArgumentParser
import Foundation
import LockClient
import LockProtocol

/// `lockctl start PROFILE[,PROFILE…] DURATION`.
struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start blocking one or more profiles for a while.",
        discussion: """
            Examples:
              lockctl start deep-work 45m
              lockctl start social,news 1h30m --strict
              lockctl start news --until 17:30
            With --json: {"sessions": [...]}, one object for every profile started.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profiles to block, comma-separated (see `lockctl profiles list`).", completion: Completions.profiles)
    var profile: String

    @Argument(help: "How long: 90s, 45m, 2h, 1h30m, 1d.")
    var duration: String?

    @Option(help: "Block until this time instead: HH:MM today, 'YYYY-MM-DD HH:MM', or RFC 3339.")
    var until: String?

    @Flag(
        inversion: .prefixedNo,
        help: """
            --strict: the block cannot be stopped before it ends; --no-strict: it can, even for a profile \
            that is strict by default (default: the profile's setting).
            """)
    var strict: Bool?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            """
            Where to block: device groups from [lan] in simplylockd.toml, lan (every device), local (this machine, the \
            default); comma-separated or repeated.
            """, valueName: "target"))
    var targets: [String] = []

    static let fields = FieldNames(["duration": "<duration>", "seconds": "<duration>", "profile": "<profile>", "target": "--for"])

    var profiles: [String] { profile.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }

    func validate() throws {
        switch (duration, until) {
        case (nil, nil): throw ValidationError("give a duration (e.g. 45m) or --until TIME")
        case (_?, _?): throw ValidationError("give either a duration or --until, not both")
        case (let text?, nil): _ = try DurationArgument.validate(text, option: "<duration>")
        default: break
        }
        if profiles.isEmpty { throw ValidationError("<profile>: give a profile name") }
    }

    func run() async throws {
        var request = StartRequest(profile: "", strict: strict, target: TargetArgument.names(targets))
        if let duration { request.seconds = try DurationArgument.validate(duration, option: "<duration>").seconds }
        if let until { request.until = try TimeArgument.parse(until) }
        let names = profiles
        if names.count > 1 {
            // Every name is checked before anything starts, so a typo starts nothing.
            let known = Set(try await global.call { try await $0.profiles() }.profiles.map(\.name))
            if let unknown = names.first(where: { !known.contains($0) }) {
                let close = CommandTree.suggestions(for: unknown, among: Array(known))
                throw CommandFailure(
                    code: ExitCodes.notFound, "no profile named \"\(unknown)\"; nothing was started",
                    hint: close.isEmpty ? "`lockctl profiles list` lists them" : "did you mean \(close.joined(separator: " or "))?",
                    errorCode: "not_found")
            }
        }
        var started: [SessionInfo] = []
        var failure: CommandFailure?
        for name in names {
            request.profile = name
            do {
                started.append(try await global.call(fields: Self.fields) { try await $0.start(request) })
            } catch let error as CommandFailure {
                // The others are still started, as `systemctl start a b` does; the first
                // failure decides the exit status.
                if names.count > 1 { ErrorOutput.print(error, json: global.json) }
                failure = failure ?? error
            }
        }
        if let failure, started.isEmpty, names.count == 1 { throw failure }
        if try !global.printJSON(SessionList(sessions: started)) {
            for session in started {
                let strictNote = session.strict ? ", strict" : ""
                let targetNote = session.target == ["local"] ? "" : " for \(session.target.joined(separator: ", "))"
                // A LAN block the DNS server has not taken is saved, not blocking: say so.
                let verb = session.notInForce == nil ? "blocked" : "saved"
                print(
                    "\(session.profile) \(verb)\(targetNote) until \(TextFormat.clock(session.endsAt)) "
                        + "(\(TextFormat.duration(seconds: session.remainingSeconds))\(strictNote)); session \(session.id)")
                if let reason = session.notInForce { print("  \(reason)") }
                if let reason = session.appsNotBlocked { print("  \(reason)") }
            }
        }
        if let failure {
            if names.count == 1 { throw failure }
            throw ExitCode(failure.code)
        }
        if started.contains(where: { $0.notInForce != nil }) { throw ExitCode(ExitCodes.notInForce) }
    }
}
