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

    @Option(name: .customLong("for"), help: "Whom to answer for: local (this machine, the default), lan, or a device group from [lan].")
    var target: String?

    func validate() throws {
        if (name == nil) == (app == nil) { throw ValidationError("give a domain or --app APP (one of the two)") }
        if target != nil, app != nil { throw ValidationError("--for applies to domains; apps are blocked on this machine only") }
    }

    func run() async throws {
        let result = try await global.call { client in
            if let app { try await client.check(app: app) } else { try await client.check(name ?? "", for: target) }
        }
        if try !global.printJSON(result) {
            var subject = app == nil ? result.name : result.displayName.map { "\($0) (\(result.name))" } ?? result.name
            if let target { subject += " (for \(target))" }
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
