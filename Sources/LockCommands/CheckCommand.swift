import ArgumentParser

/// `lockctl check NAME` or `lockctl check --app APP`: exit 0 when blocked, 1 when not.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Tell whether a site or an app is blocked now, and by which profile (exit 0 blocked, 1 not).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Domain or URL, e.g. www.reddit.com.")
    var name: String?

    @Option(help: "An app instead of a site: desktop id, flatpak id, snap name or path (e.g. steam).")
    var app: String?

    func validate() throws {
        if (name == nil) == (app == nil) { throw ValidationError("give a domain or --app APP (one of the two)") }
    }

    func run() async throws {
        let result = try await global.call(fields: FieldNames(["name": "<name>"])) { client in
            if let app { try await client.check(app: app) } else { try await client.check(name ?? "") }
        }
        if try !global.printJSON(result) {
            let subject = app == nil ? result.name : result.displayName.map { "\($0) (\(result.name))" } ?? result.name
            if result.blocked {
                for match in result.matches {
                    let rule = app == nil || match.rule != result.name ? "rule \(match.rule), " : ""
                    print("\(subject) is blocked by \(match.profile) (\(rule)\(match.origin), session \(match.session))")
                }
            } else {
                print("\(subject) is not blocked")
            }
        }
        if !result.blocked { throw ExitCode(ExitCodes.negative) }
    }
}
