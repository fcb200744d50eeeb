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
            let parent = CommandTree.commandLine(group)
            let suggestions = CommandTree.suggestions(for: word, among: group.last?.children.map(\.name) ?? [])
            let hint =
                suggestions.isEmpty
                ? "`\(parent) --help` lists the commands"
                : "did you mean " + list(suggestions.map { "`\(parent) \($0)`" }, or: true) + "?"
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
    /// `missing <duration>`. (Plain string matching: a regular expression engine would add to
    /// what every lockctl start-up loads.)
    static func reword(_ message: String) -> String {
        var text = message.trimmingCharacters(in: .whitespaces)
        /// The text between the first pair of single quotes after `prefix`, and what follows it.
        func quoted(after prefix: String) -> (String, Substring)? {
            guard text.hasPrefix(prefix) else { return nil }
            let rest = text.dropFirst(prefix.count)
            guard rest.first == "'", let close = rest.dropFirst().firstIndex(of: "'") else { return nil }
            return (String(rest[rest.index(after: rest.startIndex)..<close]), rest[rest.index(after: close)...])
        }
        /// `--limit <limit>` → `--limit`.
        func optionName(_ synopsis: String) -> String { String(synopsis.split(separator: " ").first ?? Substring(synopsis)) }
        if let (name, _) = quoted(after: "Missing expected argument ") {
            text = "missing \(name)"
        } else if let (value, _) = quoted(after: "Unexpected argument ") {
            text = "unexpected argument \"\(value)\""
        } else if let (option, rest) = quoted(after: "Unknown option ") {
            let suggestion = rest.hasPrefix(". Did you mean '") ? rest.dropFirst(16).prefix { $0 != "'" } : nil
            text = "unknown option \(option)" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
        } else if let (synopsis, _) = quoted(after: "Missing value for ") {
            let parts = synopsis.split(separator: " ", maxSplits: 1)
            text = "\(parts[0]) needs a value" + (parts.count > 1 ? " \(parts[1])" : "")
        } else if let (value, rest) = quoted(after: "The value "), rest.hasPrefix(" is invalid for '"),
            let close = rest.dropFirst(17).firstIndex(of: "'")
        {
            let target = String(rest.dropFirst(17)[..<close])
            text = "\(optionName(target)): \"\(value)\" is not valid" + rest[rest.index(after: close)...]
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
        let usage = Lockctl.usageString(for: leaf.type).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        return HelpText.compactUsage(usage)
    }

    static func list(_ items: [String], or: Bool) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + items[items.count - 1]
    }
}
