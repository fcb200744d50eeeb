import ArgumentParser
import LockProtocol

/// `lockctl version`: this program's version and the daemon's.
struct VersionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Show lockctl's and simplylockd's versions.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let daemon = try? await global.client.status().version
        if try global.printJSON(["lockctl": API.softwareVersion, "simplylockd": daemon ?? "unreachable"]) { return }
        print("lockctl      \(API.softwareVersion)")
        print("simplylockd  \(daemon ?? "not reachable at \(global.socketPath)")")
    }
}
