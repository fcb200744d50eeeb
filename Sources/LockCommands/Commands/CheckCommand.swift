import ArgumentParser
import LockProtocol

/// `lockctl check NAME` or `lockctl check --app APP`: exit 0 when blocked, 1 when not.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Tell whether a site or an app is blocked now, by which profile, and which enforcers really stop a site (exit 0 blocked, 1 not).",
        discussion: "For a site, exit 0 only when at least one enforcer in force blocks the name; --json gives each enforcer's answer.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Domain or URL, e.g. www.reddit.com.")
    var name: String?

    @Option(help: "An app instead of a site: desktop id, flatpak id, snap name or path (e.g. steam).")
    var app: String?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("Whom to answer for: local (this machine, the default), lan, or a device group from [lan].", valueName: "target")
    )
    var target: String?

    func validate() throws {
        if (name == nil) == (app == nil) { throw ValidationError("give a domain or --app APP (one of the two)") }
        if target != nil, app != nil { throw ValidationError("--for applies to domains; apps are blocked on this machine only") }
    }

    func run() async throws {
        let result = try await global.call(fields: FieldNames(["name": "<name>"])) { client in
            if let app {
                try await client.check(app: app)
            } else if let name, target == nil, CheckCommand.hasPath(name) {
                try await client.check(url: name)
            } else {
                try await client.check(name ?? "", for: target)
            }
        }
        if try !global.printJSON(result) {
            if app != nil {
                let subject = result.displayName.map { "\(TextFormat.shown($0)) (\(result.name))" } ?? result.name
                if result.blocked {
                    for match in result.matches {
                        let rule = match.rule != result.name ? "rule \(match.rule), " : ""
                        print("\(subject) is blocked by \(match.profile) (\(rule)\(match.origin), session \(match.session))")
                    }
                } else if result.matches.isEmpty {
                    print("\(subject) is not blocked")
                } else {
                    let profiles = result.matches.map(\.profile).joined(separator: ", ")
                    let why = result.enforcers.isEmpty ? "no app enforcer is running" : "no enforcer in force stops it"
                    print("\(subject) is NOT blocked: \(profiles) blocks it, but \(why)")
                }
                if !result.enforcers.isEmpty {
                    print(
                        TextFormat.table(result.enforcers.map { ["", $0.name, $0.blocks ? "blocks" : "does not", $0.detail] }, indent: " "))
                }
            } else {
                print(CheckCommand.render(result, target: target))
            }
        }
        if !result.blocked { throw ExitCode(ExitCodes.negative) }
    }

    /// True for an address with a path beyond `/` (`youtube.com/shorts/x`): only the browser
    /// companion sees paths, so such an address is asked about as a URL.
    static func hasPath(_ text: String) -> Bool {
        var rest = Substring(text)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        guard let slash = rest.firstIndex(of: "/") else { return false }
        let path = rest[slash...].prefix { $0 != "?" && $0 != "#" }
        return path.count > 1
    }

    static func render(_ result: CheckResponse, target: String? = nil) -> String {
        var lines: [String] = []
        let subject = result.name + (target.map { " (for \($0))" } ?? "")
        if result.blocked {
            lines.append("\(subject) is blocked")
        } else if result.matches.isEmpty {
            lines.append("\(subject) is not blocked")
        } else {
            lines.append("\(subject) is NOT blocked: a block's rule covers it, but no enforcer in force can stop it")
        }
        for match in result.matches {
            let list = match.list.map { ", list \($0)" } ?? ""
            lines.append("  by \(match.profile) (rule \(match.rule)\(list), \(match.origin), session \(match.session))")
        }
        if !result.enforcers.isEmpty {
            lines.append(
                TextFormat.table(result.enforcers.map { ["", $0.name, $0.blocks ? "blocks" : "does not", $0.detail] }, indent: " "))
        }
        return lines.joined(separator: "\n")
    }
}
