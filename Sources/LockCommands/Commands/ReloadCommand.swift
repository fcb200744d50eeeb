import ArgumentParser
import LockCore

/// `lockctl reload`.
struct ReloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the daemon read its configuration, profiles and schedules again (exit 1 when a file has a problem).",
        discussion:
            "A file with a problem keeps its last good version in force; the problems are listed. `simplylockd --check-config` checks the files without a daemon."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let result = try await global.call { try await $0.reload() }
        if try !global.printJSON(result) {
            print("reloaded: \(TextFormat.count(result.profiles, "profile"))")
            for problem in result.problems { print("  problem: \(TextFormat.shown(problem))") }
            if !result.problems.isEmpty {
                print("  fix: \(Finding.fixFile(lockctl: global.root == "/" ? "lockctl" : "lockctl --root \(global.root)"))")
            }
        }
        // A bad file keeps its last good version, so the daemon runs on; the status says the
        // files need fixing, like doctor's.
        if !result.problems.isEmpty { throw ExitCode(ExitCodes.negative) }
    }
}
