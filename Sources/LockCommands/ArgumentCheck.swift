import ArgumentParser
import Foundation

/// What lockctl checks on the command line before and after the argument parser, so that
/// mistakes read as one sentence with one hint: a mistyped command gets "did you mean", a
/// negative duration is named as such instead of being taken for an option, and the parser's
/// own messages lose their usage dump.
enum ArgumentCheck {
    /// Commands whose positional DURATION a negative value would otherwise be mistaken for options.
    static let durationCommands: [String: String] = [
        "start": "give how long to block, e.g. 45m",
        "extend": "blocks can only get longer; `lockctl stop` ends a block early (not a strict one)",
    ]

    static func check(_ arguments: [String], tree: CommandTree) throws {
        if let (word, group) = tree.unknownCommand(in: arguments) {
            let where_ = CommandTree.commandLine(group)
            let suggestions = CommandTree.suggestions(for: word, among: group.last?.children.map(\.name) ?? [])
            let hint = suggestions.isEmpty
                ? "`\(where_) --help` lists the commands"
                : "did you mean " + list(suggestions.map { "`\(where_) \($0)`" }, or: true) + "?"
            let noun = group.count == 1 ? "command" : "\(group.last?.name ?? "") command"
            throw CommandFailure(code: ExitCodes.usage, "unknown \(noun) \"\(word)\"", hint: hint)
        }
        let path = tree.path(of: arguments)
        guard path.count == 2, let hint = durationCommands[path[1].name] else { return }
        var previous = ""
        for argument in arguments.prefix(while: { $0 != "--" }) {
            defer { previous = argument }
            guard argument.count > 1, argument.hasPrefix("-"), argument.dropFirst().first?.isNumber == true else { continue }
            if previous.hasPrefix("--"), !previous.contains("="), !CommandTree.flags.contains(previous) { continue }
            throw CommandFailure(code: ExitCodes.usage, "<duration>: \(argument) is negative", hint: hint)
        }
    }

    /// The failure a parser error stands for: its message without the usage dump, with the
    /// argument names as the help shows them, and a hint with the command's usage.
    static func failure(for error: Error, arguments: [String], tree: CommandTree) -> CommandFailure {
        let path = tree.path(of: arguments)
        let usage = usageLine(path)
        var message = Lockctl.message(for: error)
        if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
        return CommandFailure(code: ExitCodes.usage, reword(message), hint: usage.map { "usage: \($0)" })
    }

    /// The parser's phrases in lockctl's voice: `Missing expected argument '<duration>'` →
    /// `missing <duration>`.
    static func reword(_ message: String) -> String {
        var text = message.trimmingCharacters(in: .whitespaces)
        let patterns: [(String, String)] = [
            ("^Missing expected argument '(.+)'$", "missing $1"),
            ("^Unexpected argument '(.+)'$", "unexpected argument \"$1\""),
            ("^Unknown option '(.+)'\\. Did you mean '(.+)'\\?$", "unknown option $1 (did you mean $2?)"),
            ("^Unknown option '(.+)'$", "unknown option $1"),
            ("^Missing value for '([^ ']+) ?([^']*)'$", "$1 needs a value $2"),
            ("^The value '(.*)' is invalid for '([^ ']+) ?[^']*'(.*)$", "$2: \"$1\" is not valid$3"),
        ]
        for (pattern, template) in patterns {
            if let regex = try? NSRegularExpression(pattern: pattern),
               let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                text = regex.replacementString(for: match, in: text, offset: 0, template: template)
                break
            }
        }
        text = text.trimmingCharacters(in: .whitespaces)
        if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
            text = first.lowercased() + text.dropFirst()
        }
        return text
    }

    /// `lockctl extend [<options>] <reference> <duration>`: the usage of the deepest command named.
    static func usageLine(_ path: [CommandTree]) -> String? {
        guard let leaf = path.last, path.count > 1 else { return nil }
        let usage = Lockctl.usageString(for: leaf.type).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return HelpText.compactUsage(usage)
    }

    static func list(_ items: [String], or: Bool) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + items[items.count - 1]
    }
}
