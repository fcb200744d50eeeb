import ArgumentParser
import Foundation
import LockCore
import LockProtocol

/// `lockctl goals`.
struct GoalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "goals",
        abstract: "Show or set daily and weekly focus goals.",
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the focus goals.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let goals = try await global.call { try await $0.goals() }
            if try global.printJSON(goals) { return }
            print(GoalsCommand.describe(goals))
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set focus goals (`off` removes one).",
            discussion: "A day meets the daily goal when blocks were in force at least that long; a streak is the run of days that did.")

        @OptionGroup var global: GlobalOptions

        @Option(help: "Focus per day (3h, 90m) or off.")
        var daily: String?

        @Option(help: "Focus per week, Monday to Sunday (15h) or off.")
        var weekly: String?

        func validate() throws {
            guard daily != nil || weekly != nil else { throw ValidationError("give --daily, --weekly or both") }
            if let daily { _ = try GoalsCommand.seconds(daily, option: "--daily") }
            if let weekly { _ = try GoalsCommand.seconds(weekly, option: "--weekly") }
        }

        func run() async throws {
            let request = UpdateGoalsRequest(
                dailySeconds: try daily.map { try GoalsCommand.seconds($0, option: "--daily") },
                weeklySeconds: try weekly.map { try GoalsCommand.seconds($0, option: "--weekly") })
            let goals = try await global.call { try await $0.updateGoals(request) }
            if try global.printJSON(goals) { return }
            print(GoalsCommand.describe(goals))
        }
    }

    /// Seconds for a goal argument: a duration, or 0 for `off`.
    static func seconds(_ text: String, option: String) throws -> Double {
        if ["off", "none", "0"].contains(text.lowercased()) { return 0 }
        return try DurationArgument.validate(text, option: option).seconds
    }

    static func describe(_ goals: GoalsInfo) -> String {
        func text(_ seconds: Double?) -> String { seconds.map { InsightsChart.hours($0) } ?? "none" }
        return "daily goal   \(text(goals.dailySeconds))\nweekly goal  \(text(goals.weeklySeconds))"
    }
}
