import ArgumentParser

/// `lockctl stop PROFILE|SESSION`.
struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop a block early (refused for strict blocks).")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Profile name or session id.")
    var reference: String

    func run() async throws {
        let stopped = try await global.call { try await $0.stop(reference) }
        if try global.printJSON(stopped) { return }
        for session in stopped { print("\(session.profile) block stopped (session \(session.id))") }
    }
}
