import ArgumentParser

/// `lockctl history`.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show recent blocks and how they ended.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "How many entries.")
    var limit: Int = 20

    func run() async throws {
        let history = try await global.call { try await $0.history(limit: limit) }
        if try global.printJSON(history) { return }
        guard !history.entries.isEmpty else { return print("no blocks yet") }
        var rows = [["STARTED", "PROFILE", "ORIGIN", "PLANNED END", "ENDED", "HOW"]]
        for entry in history.entries {
            let ended: String = entry.endedAt.map { TextFormat.clock($0) } ?? "-"
            let row: [String] = [
                TextFormat.clock(entry.startedAt), entry.profile, entry.origin,
                TextFormat.clock(entry.plannedEnd), ended, entry.endReason ?? "active",
            ]
            rows.append(row)
        }
        print(TextFormat.table(rows, header: true))
    }
}
