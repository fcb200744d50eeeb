import ArgumentParser
import Foundation
import Glibc
import LockProtocol
import LockPlatform

/// `lockctl`: the command-line companion of simplylockd.
public struct Lockctl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "lockctl",
        abstract: "Control SimplyLock focus blocks.",
        discussion: """
            Talks to simplylockd over its control socket. Anyone may read status; changes need root or \
            membership of the `simplylock` group.

            \(ExitCodes.table)
            """,
        version: API.softwareVersion,
        subcommands: [StatusCommand.self, StartCommand.self, StopCommand.self, ExtendCommand.self, CheckCommand.self,
                      ProfilesCommand.self, SchedulesCommand.self, PomodoroCommand.self, HistoryCommand.self, EventsCommand.self,
                      ReloadCommand.self, DoctorCommand.self, VersionCommand.self,
                      InsightsCommand.self, GoalsCommand.self, UnlockCommand.self])

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
            } else if (argument == "--root" || argument == "--socket"), index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        let rest = Array(arguments[index...])
        guard !leading.isEmpty, !rest.isEmpty else { return arguments }
        // Help needs no socket; appending options would make a command group show the help
        // of its default subcommand instead of its own.
        if rest.contains("--help") || rest.contains("-h") || rest.first == "help" { return rest }
        return rest + leading
    }

    /// Parses the command line, runs the command and exits with the documented status.
    public static func run(arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(hoistingGlobalOptions(arguments ?? ProcessArguments.current))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Glibc.exit(ExitCodes.success)
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("lockctl: \(failure.message)\n".utf8))
            Glibc.exit(failure.code)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                Glibc.exit(ExitCodes.success)
            }
            FileHandle.standardError.write(Data((message.isEmpty ? "" : message + "\n").utf8))
            Glibc.exit(code == .validationFailure ? ExitCodes.usage : code.rawValue)
        }
    }
}
