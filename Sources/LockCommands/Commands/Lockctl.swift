import ArgumentParser
import Dispatch
import Foundation
import Glibc
import LockPlatform
import LockProtocol

/// `lockctl`: the command-line companion of simplylockd.
public struct Lockctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "lockctl",
        abstract: "Control SimplyLock focus blocks.",
        discussion: """
            Talks to simplylockd over its control socket. Anyone may read status; changes need root or \
            membership of the `simplylock` group.
            """,
        version: API.softwareVersion,
        subcommands: [
            StatusCommand.self, StartCommand.self, StopCommand.self, ExtendCommand.self, UnlockCommand.self,
            CheckCommand.self, ProfilesCommand.self, AppsCommand.self, ServicesCommand.self, ListsCommand.self,
            SchedulesCommand.self, AllowancesCommand.self, PomodoroCommand.self, InsightsCommand.self, UsageCommand.self, GoalsCommand.self,
            HistoryCommand.self, UICommand.self,
            EventsCommand.self, NotifyCommand.self, ReloadCommand.self, DoctorCommand.self, BrowserCommand.self, VersionCommand.self,
        ])

    /// Declared here too, though commands read their own copy (global options written first
    /// are moved after the command): so that shell completions and the manual page know them.
    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Moves global options written before the subcommand (`lockctl --root DIR status`) after
    /// it, where the argument parser expects them (`lockctl status --root DIR`).
    static func hoistingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--json" || argument.hasPrefix("--root=") || argument.hasPrefix("--socket=") {
                leading.append(argument)
                index += 1
            } else if argument == "--root" || argument == "--socket", index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        let rest = Array(arguments[index...])
        guard !leading.isEmpty else { return arguments }
        // Help needs no socket; appending options would make a command group show the help
        // of its default subcommand instead of its own.
        if rest.isEmpty || rest.contains("--help") || rest.contains("-h") || rest.first == "help" { return rest }
        return rest + leading
    }

    /// `run` on the concurrency pool while the main thread waits, for a synchronous `main`. An
    /// async `main` parks the main thread with `dispatch_main`, whose `pthread_exit` unwinds
    /// the thread; in a static executable libgcc first sorts every unwind table entry, 30 ms.
    public static func runWhileMainWaits() -> Never {
        let never = DispatchSemaphore(value: 0)
        Task { await run() }
        never.wait()
        fatalError("Lockctl.run returned")
    }

    /// Parses the command line, runs the command and exits with the documented status. Every
    /// error, whoever finds it, is printed the one way `CommandFailure` describes.
    public static func run(arguments: [String]? = nil) async -> Never {
        let given = arguments ?? ProcessArguments.current
        // Shell completion asks through the parser; nothing else applies to it.
        if given.first == "---completion" { await passThrough(given) }
        let hoisted = hoistingGlobalOptions(given)
        let json = hoisted.prefix { $0 != "--" }.contains("--json")
        let tree = CommandTree(type: Lockctl.self)
        do {
            if hoisted.isEmpty || hoisted == ["--help"] || hoisted == ["-h"] || hoisted == ["help"] {
                print(RootHelp.text(width: Terminal.width))
                Glibc.exit(ExitCodes.success)
            }
            try ArgumentCheck.check(hoisted, tree: tree)
            var command = try await asyncParseAsRoot(hoisted)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Glibc.exit(ExitCodes.success)
        } catch let failure as CommandFailure {
            ErrorOutput.print(failure, json: json)
            Glibc.exit(failure.code)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version, help COMMAND, a completion script.
                let text = fullMessage(for: error)
                print(HelpText.tidy(text))
                Glibc.exit(ExitCodes.success)
            }
            let failure = ArgumentCheck.failure(for: error, arguments: hoisted, tree: tree)
            ErrorOutput.print(failure, json: json)
            Glibc.exit(failure.code)
        }
    }

    private static func passThrough(_ arguments: [String]) async -> Never {
        do {
            var command = try await asyncParseAsRoot(arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if !text.isEmpty { print(text) }
            Glibc.exit(code.rawValue)
        }
        Glibc.exit(ExitCodes.success)
    }
}
