import ArgumentParser
import Foundation
import Glibc
import LockProtocol

/// `lockctl lists …`: import, list, show and remove blocklists.
struct ListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Import, list, show and remove blocklists (hosts files, plain domain lists, AdBlock ||name^ rules).",
        discussion: """
            An imported list blocks its names with all their subdomains through the dns enforcer, in every block of a \
            profile that names it (lockctl profiles add-list PROFILE NAME, or lists = ["NAME"] in the profile file).
            """,
        subcommands: [List.self, Show.self, Import.self, Remove.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List imported blocklists.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let lists = try await global.call { try await $0.lists() }
            if try global.printJSON(lists) { return }
            if lists.lists.isEmpty { print("no blocklists imported (lockctl lists import NAME FILE)") }
            if !lists.lists.isEmpty {
                let rows =
                    [["NAME", "NAMES", "EXCEPTIONS", "SKIPPED", "IMPORTED", "PROFILES"]]
                    + lists.lists.map {
                        [
                            $0.name, "\($0.names)", "\($0.exceptions)", "\($0.skipped)", TextFormat.clock($0.importedAt),
                            $0.profiles.isEmpty ? "-" : $0.profiles.joined(separator: " "),
                        ]
                    }
                print(TextFormat.table(rows))
            }
            for problem in lists.problems { print("problem: \(TextFormat.shown(problem))") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a blocklist: counts, skipped lines by reason with examples, source.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "List name.") var name: String

        func run() async throws {
            let list = try await global.call { try await $0.list(name) }
            if try global.printJSON(list) { return }
            print(Show.render(list))
        }

        static func render(_ list: ListInfo) -> String {
            var rows: [[String]] = [
                ["Name:", list.name], ["Version:", list.version], ["Source:", list.source],
                ["Imported:", TextFormat.clock(list.importedAt)],
                ["Blocks:", "\(TextFormat.count(list.names, "name")) and every name under them"],
                ["Exceptions:", "\(list.exceptions)"],
                [
                    "Read:",
                    "\(TextFormat.count(list.lines, "line")), \(list.comments) comments or blank, \(TextFormat.count(list.skipped, "rule")) skipped",
                ],
                ["Memory:", String(format: "%.1f MiB", Double(list.bytes) / 1_048_576)],
                [
                    "Profiles:",
                    list.profiles.isEmpty ? "none (lockctl profiles add-list PROFILE \(list.name))" : list.profiles.joined(separator: " "),
                ],
            ]
            if !list.heldBy.isEmpty {
                rows.append([
                    "Held by:",
                    list.heldBy.map { "\($0.profile) (session \($0.session)\($0.strict ? ", strict" : ""), version \($0.version))" }
                        .joined(separator: ", "),
                ])
            }
            var lines = [TextFormat.table(rows)]
            if !list.skippedByReason.isEmpty {
                lines.append("Skipped:")
                for group in list.skippedByReason {
                    lines.append("  \(group.count) \(group.reason): \(group.explanation)")
                    for example in group.examples { lines.append("      line \(example.line): \(example.text)") }
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Import a blocklist from a file or standard input (-), replacing the list of that name.",
            discussion: """
                The text is streamed to simplylockd as it is read (a list of a million lines is never held whole). \
                Hosts files (0.0.0.0 name), plain domain lists and AdBlock ||name^ / @@||name^ rules are understood, mixed \
                freely; every other rule is counted by reason (see lockctl lists show NAME). Running blocks of profiles that \
                name the list move to the new version at once; a strict block keeps the names the new version drops until it ends.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "List name: a-z, 0-9 and '-'.") var name: String
        @Argument(help: "The list's file, or - for standard input.") var file: String

        func run() async throws {
            let fd: Int32
            let source: String
            if file == "-" {
                fd = STDIN_FILENO
                source = "-"
            } else {
                fd = open(file, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw CommandFailure(code: ExitCodes.usage, "\(file): \(String(cString: strerror(errno)))") }
                source = URL(fileURLWithPath: file).standardizedFileURL.path
            }
            defer { if fd != STDIN_FILENO { close(fd) } }
            let result = try await global.call { try await $0.importList(name, from: fd, source: source) }
            if try global.printJSON(result) { return }
            let list = result.list
            print(
                "list \(list.name) \(result.unchanged ? "unchanged" : "imported"): \(TextFormat.count(list.names, "name")), \(TextFormat.count(list.exceptions, "exception")) "
                    + "from \(TextFormat.count(list.lines, "line")) (\(TextFormat.count(list.skipped, "rule")) skipped)")
            for group in list.skippedByReason {
                let examples = group.examples.prefix(2).map { "\"\($0.text)\" (line \($0.line))" }.joined(separator: ", ")
                print("  \(group.count) skipped: \(group.explanation)" + (examples.isEmpty ? "" : ", e.g. \(examples)"))
            }
            if !result.updatedSessions.isEmpty {
                print("running blocks now use it: \(result.updatedSessions.joined(separator: " "))")
            } else if list.profiles.isEmpty {
                print("no profile uses it yet: lockctl profiles add-list PROFILE \(list.name)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a blocklist (refused while a strict block holds it).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "List name.") var name: String

        func run() async throws {
            try await global.call { try await $0.removeList(name) }
            if try global.printJSON(["deleted": name]) { return }
            print("list \(name) removed")
        }
    }
}
