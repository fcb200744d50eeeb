import ArgumentParser

/// `lockctl reload`.
struct ReloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the daemon read its configuration, profiles and schedules again.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let result = try await global.call { try await $0.reload() }
        if try global.printJSON(result) { return }
        print("reloaded: \(result.profiles) profiles")
        for problem in result.problems { print("  problem: \(problem)") }
    }
}
