import ArgumentParser

/// `lockctl extend PROFILE|SESSION DURATION`.
struct ExtendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Lengthen a running block (blocks can only get longer).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profile name or session id.", completion: Completions.sessions)
    var reference: String

    @Argument(help: "How much longer: 15m, 1h, 1h30m.")
    var duration: String

    static let fields = FieldNames(["seconds": "<duration>", "duration": "<duration>"])

    func validate() throws { _ = try DurationArgument.validate(duration, option: "<duration>") }

    func run() async throws {
        let seconds = try DurationArgument.validate(duration, option: "<duration>").seconds
        let session = try await global.call(fields: Self.fields) { try await $0.extend(reference, seconds: seconds) }
        if try global.printJSON(session) {
            if session.notInForce != nil { throw ExitCode(ExitCodes.notInForce) }
            return
        }
        let verb = session.notInForce == nil ? "blocked" : "saved"
        print(
            "\(session.profile) \(verb) until \(TextFormat.clock(session.endsAt)) (\(TextFormat.duration(seconds: session.remainingSeconds)) left)"
        )
        if let reason = session.appsNotBlocked { print("  \(reason)") }
        if let reason = session.notInForce {
            print("  \(reason)")
            throw ExitCode(ExitCodes.notInForce)
        }
    }
}
