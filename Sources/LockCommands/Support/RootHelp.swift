import LockProtocol

/// `lockctl --help`: what the argument parser's root help lacks — the global options, the exit
/// status table right after the usage, and examples — with rows and commands never wrapped in
/// the middle (only the prose of long descriptions wraps, at word boundaries).
enum RootHelp {
    static let examples =
        [
            ("lockctl start deep-work 45m", "block a profile for 45 minutes"),
            ("lockctl start social,news 1h --strict", "two profiles, not stoppable early"),
            ("lockctl status --watch", "follow the blocks as they change"),
            ("lockctl stop --all", "end every block that may be ended"),
            ("lockctl schedules add am --profile news --days mon-fri --from 08:00 --to 12:00", "weekday mornings"),
            ("lockctl profiles create focus --domain reddit.com --service youtube", "a profile of your own"),
        ] as [(String, String?)]

    static let globalOptions = [
        ("--root <dir>", "Prefix of every default path, as given to `simplylockd --root`."),
        ("--socket <path>", "Control socket (default: $SIMPLYLOCK_SOCKET, else ROOT/run/simplylock/lockctl.sock)."),
        ("--json", "Print machine-readable JSON instead of text (errors too, on stderr)."),
        ("-h, --help", "Show help; `lockctl help COMMAND` or `lockctl COMMAND --help` for a command's."),
        ("--version", "Show the version."),
    ]

    static func text(width: Int) -> String {
        var lines = [
            "OVERVIEW: \(Lockctl.configuration.abstract)",
            "",
            "USAGE: lockctl [<global options>] <command> [<arguments>...]",
            "",
        ]
        lines += prose(Lockctl.configuration.discussion, width: width)
        lines += ["", "EXIT STATUS:"]
        lines += ExitCodes.meanings.map { "  \($0.0)  \($0.1)" }
        lines += ["", "GLOBAL OPTIONS (before or after the command):"]
        lines += rows(globalOptions, width: width)
        lines += ["", "COMMANDS:"]
        lines += rows(CommandTree(type: Lockctl.self).children.map { ($0.name, $0.abstract) }, width: width)
        lines += ["", "EXAMPLES:"]
        for (command, note) in examples {
            lines.append("  \(command)")
            if let note { lines.append("      \(note)") }
        }
        lines += ["", "See `lockctl help <command>` for a command's options, and lockctl(1)."]
        return lines.joined(separator: "\n")
    }

    /// `  name   description`, the description wrapped at words beside its column.
    static func rows(_ rows: [(String, String)], width: Int) -> [String] {
        let column = min(24, (rows.map(\.0.count).max() ?? 0) + 4)
        return rows.map { name, text in
            let room = max(30, width - column)
            let wrapped = TextFormat.wrap(text, width: room, indent: 0).split(separator: "\n")
            let first = "  " + name + String(repeating: " ", count: max(2, column - 2 - name.count)) + (wrapped.first ?? "")
            return ([first] + wrapped.dropFirst().map { String(repeating: " ", count: column) + $0 }).joined(separator: "\n")
        }
    }

    static func prose(_ text: String, width: Int) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { TextFormat.wrap(String($0), width: width, indent: 0) }
    }
}
