import ArgumentParser
import LockProtocol

/// `lockctl apps …`: the installed applications profiles can block.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the installed apps that profiles can block.",
        subcommands: [List.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List installed apps: id, name, categories and the programs a block denies.",
            discussion: "The ID column is what `lockctl profiles add-app` takes; flatpak ids and snap names work too.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only apps of this freedesktop category (Game, Chat, Video and so on; any case).") var category: String?
        @Flag(help: "Also list entries hidden from menus (NoDisplay=true).") var all = false

        func run() async throws {
            let list = try await global.call { try await $0.apps(category: category) }
            if try global.printJSON(list) { return }
            print(List.render(list, includeHidden: all))
        }

        static func render(_ list: AppList, includeHidden: Bool) -> String {
            let shown = list.apps.filter { includeHidden || !$0.hidden }
            guard !shown.isEmpty else { return "no apps found" }
            var rows = [["ID", "NAME", "CATEGORIES", "EXECUTABLES"]]
            for app in shown {
                var programs = app.executables.first ?? "(none found on disk)"
                if app.executables.count > 1 { programs += " +\(app.executables.count - 1)" }
                rows.append([app.id, app.name, app.categories.joined(separator: ";"), programs])
            }
            var text = TextFormat.table(rows)
            let hidden = list.apps.count - shown.count
            if hidden > 0 { text += "\n(\(hidden) hidden from menus; --all lists them)" }
            for problem in list.problems { text += "\nproblem: \(TextFormat.shown(problem))" }
            return text
        }
    }
}
