import ArgumentParser

/// `lockctl check NAME`: exit 0 when blocked, 1 when not.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Tell whether a site is blocked now, and by which profile (exit 0 blocked, 1 not).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Domain or URL, e.g. www.reddit.com.")
    var name: String

    func run() async throws {
        let result = try await global.call(fields: FieldNames(["name": "<name>"])) { try await $0.check(name) }
        if try !global.printJSON(result) {
            if result.blocked {
                for match in result.matches {
                    print("\(result.name) is blocked by \(match.profile) (rule \(match.rule), \(match.origin), session \(match.session))")
                }
            } else {
                print("\(result.name) is not blocked")
            }
        }
        if !result.blocked { throw ExitCode(ExitCodes.negative) }
    }
}
