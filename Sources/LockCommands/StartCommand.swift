import ArgumentParser
import Foundation
import LockProtocol

/// `lockctl start PROFILE DURATION`.
struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start blocking a profile for a while.",
        discussion: "Examples: `lockctl start deep-work 45m`, `lockctl start focus 1h30m --strict`, `lockctl start news --until 17:30`.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profile to block (see `lockctl profiles list`).")
    var profile: String

    @Argument(help: "How long: 90s, 45m, 2h, 1h30m, 1d.")
    var duration: String?

    @Option(help: "Block until this time instead: HH:MM today, 'YYYY-MM-DD HH:MM', or RFC 3339.")
    var until: String?

    @Flag(inversion: .prefixedNo, help: "A strict block cannot be stopped before it ends (default: the profile's setting).")
    var strict: Bool?

    @Option(name: .customLong("for"), help: "Where to block: device groups from [lan] in simplylockd.toml, lan (every device), local (this machine, the default); comma-separated or repeated.")
    var targets: [String] = []

    func validate() throws {
        switch (duration, until) {
        case (nil, nil): throw ValidationError("give a duration (e.g. 45m) or --until TIME")
        case (_?, _?): throw ValidationError("give either a duration or --until, not both")
        case (let text?, nil): _ = try DurationArgument.validate(text, option: "duration")
        default: break
        }
    }

    func run() async throws {
        var request = StartRequest(profile: profile, strict: strict, target: TargetArgument.names(targets))
        if let duration { request.seconds = try DurationArgument.validate(duration, option: "duration").seconds }
        if let until { request.until = try TimeArgument.parse(until) }
        let session = try await global.call { try await $0.start(request) }
        if try global.printJSON(session) { return }
        let strictNote = session.strict ? ", strict" : ""
        let targetNote = session.target == ["local"] ? "" : " for \(session.target.joined(separator: ", "))"
        print("\(session.profile) blocked\(targetNote) until \(TextFormat.clock(session.endsAt)) (\(TextFormat.duration(seconds: session.remainingSeconds))\(strictNote)); session \(session.id)")
    }
}
