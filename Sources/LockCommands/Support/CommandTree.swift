import ArgumentParser
import LockCore

/// The commands as a tree of names, for what the argument parser does not do: "did you mean"
/// for a mistyped command, the command an error belongs to, and the root help's command list.
struct CommandTree {
    let type: any ParsableCommand.Type

    var name: String { type.configuration.commandName ?? type._commandName }
    var abstract: String { type.configuration.abstract }
    var children: [CommandTree] { type.configuration.subcommands.map(CommandTree.init) }
    var hasDefault: Bool { type.configuration.defaultSubcommand != nil }

    func child(_ name: String) -> CommandTree? { children.first { $0.name == name } }

    /// Flags that take no value, everywhere in lockctl; any other option takes one.
    static let flags: Set<String> = [
        "--json", "--strict", "--no-strict", "--manual", "--no-manual", "--all", "--watch", "--now",
        "--help", "-h", "--version", "--no-wait",
    ]

    /// The commands named at the start of `arguments` (options skipped), the root first.
    func path(of arguments: [String]) -> [CommandTree] {
        var path = [self]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument.hasPrefix("-") {
                index += argument.contains("=") || CommandTree.flags.contains(argument) ? 1 : 2
                continue
            }
            guard let next = path.last?.child(argument) else { break }
            path.append(next)
            index += 1
        }
        return path
    }

    /// The first word where a command was expected but none of that name exists, with the
    /// command group it was looked up in.
    func unknownCommand(in arguments: [String]) -> (word: String, group: [CommandTree])? {
        var path = [self]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if argument.hasPrefix("-") {
                index += argument.contains("=") || CommandTree.flags.contains(argument) ? 1 : 2
                continue
            }
            guard let group = path.last, !group.children.isEmpty else { return nil }
            if let next = group.child(argument) {
                path.append(next)
                index += 1
                continue
            }
            if argument == "help", path.count == 1 { return nil }
            // No command group here takes positional arguments: a word is a command or a mistake.
            return (argument, path)
        }
        return nil
    }

    /// "did you mean" candidates: commands the word starts (`stat` → `status`), else the
    /// closest by spelling (`stauts` → `status`).
    static func suggestions(for word: String, among names: [String]) -> [String] {
        let lowered = word.lowercased()
        let prefixed = names.filter { $0.hasPrefix(lowered) }
        if !prefixed.isEmpty, lowered.count >= 2 { return prefixed.sorted() }
        let close = names.map { ($0, swapsDistance(Array(lowered), Array($0))) }.filter { $0.1 <= max(1, lowered.count / 3) }
        guard let best = close.map(\.1).min() else { return ClosestMatches.find(word, among: names, limit: 2) }
        return close.filter { $0.1 == best }.map(\.0).sorted()
    }

    /// Edit distance where swapping two neighbours counts once (`stauts` is one step from `status`).
    static func swapsDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }

    /// `lockctl schedules add`: the names along a path.
    static func commandLine(_ path: [CommandTree]) -> String { path.map(\.name).joined(separator: " ") }
}
