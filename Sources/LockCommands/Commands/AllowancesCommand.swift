import ArgumentParser
import Foundation
import LockCore
import LockProtocol

/// `lockctl allowances …`: time allowances, blocks that start when time in use runs out.
struct AllowancesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allowances",
        abstract: "Add, list and remove time allowances: a profile blocks once its apps were in use long enough.",
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self)

    static let fields = FieldNames([
        "dailySeconds": "--daily", "weeklySeconds": "--weekly", "warnSeconds": "--warn", "cooldownSeconds": "--cooldown",
        "daily": "--daily", "weekly": "--weekly", "warn": "--warn", "cooldown": "--cooldown", "opens": "--opens", "name": "<name>",
    ])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a time allowance.",
            discussion: """
                Time counts while the profile's apps are in use (see `lockctl usage`); when --daily or --weekly is \
                used up, a block of the profile (origin allowance:NAME) runs until the time resets at local midnight, \
                or on Monday for --weekly.
                --opens and --cooldown limit launches of the profile's apps: a launch is an exec of one of an app's \
                programs by a user for whom no process of that app runs (helpers, child execs and second windows are \
                not launches). The kernel refuses a launch past the day's --opens, or within --cooldown of the last one; \
                launches come back at local midnight. A launch the daemon cannot decide within 2 s is refused with \
                --strict and allowed otherwise.
                Examples:
                  lockctl allowances add video-time --profile video --daily 30m --days mon-fri --warn 5m
                  lockctl allowances add kids-games --profile gaming --daily 1h --weekly 5h --for kids --strict
                  lockctl allowances add gaming --profile gaming --opens 3 --cooldown 1h
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Allowance name: a-z, 0-9 and '-'.") var name: String
        @Option(help: "Profile to meter and block (see `lockctl profiles list`).", completion: Completions.profiles) var profile: String
        @Option(help: "Time per day (30m, 1h).") var daily: String?
        @Option(help: "Time per week, from Monday 00:00 (5h).") var weekly: String?
        @Option(help: "Days it applies on (mon-fri, sat,sun, all; default: all).") var days: String?
        @Option(help: "Warn this long before the time is used up (5m).") var warn: String?
        @Flag(help: "The block it starts cannot be stopped early.") var strict = false
        @Option(name: .customLong("for"), help: "Whose time: device groups from [lan], lan, local (the default); repeatable.")
        var target: [String] = []
        @Option(help: "Launches of its apps allowed per day (an exec while the app runs is not a launch).") var opens: Int?
        @Option(help: "Least time between two launches of its apps (1h).") var cooldown: String?

        func run() async throws {
            func seconds(_ text: String?, _ option: String) throws -> Double? {
                try text.map { try SchedulesCommand.parse($0, field: option).seconds }
            }
            let request = CreateAllowanceRequest(
                name: name, profile: profile, dailySeconds: try seconds(daily, "--daily"), weeklySeconds: try seconds(weekly, "--weekly"),
                days: days, warnSeconds: try seconds(warn, "--warn"), strict: strict, target: TargetArgument.names(target),
                opens: opens, cooldownSeconds: try seconds(cooldown, "--cooldown"))
            let allowance = try await global.call(fields: AllowancesCommand.fields) { try await $0.createAllowance(request) }
            if try global.printJSON(allowance) { return }
            print("allowance \(allowance.name) added: \(AllowancesCommand.summary(allowance))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List time allowances: time used and left, launches used, when they reset.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.call { try await $0.allowances() }
            if try global.printJSON(list) { return }
            guard !list.allowances.isEmpty else { return print("no allowances (add one with `lockctl allowances add`)") }
            var rows = [["NAME", "PROFILE", "LIMIT", "USED", "LEFT", "OPENS", "RESETS", "STATE"]]
            for allowance in list.allowances {
                rows.append([
                    allowance.name, allowance.profile, summary(allowance),
                    allowance.dailySeconds == nil && allowance.weeklySeconds == nil
                        ? "-" : TextFormat.duration(seconds: allowance.usedTodaySeconds),
                    allowance.leftSeconds.map { TextFormat.duration(seconds: $0) } ?? "-", opens(allowance) ?? "-",
                    TextFormat.clock(allowance.resetsAt), allowance.blocking ? "blocking" : allowance.inUse ? "in use" : "-",
                ])
            }
            print(TextFormat.table(rows, header: true))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a time allowance; its block ends (refused while a strict one blocks or refuses launches).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Allowance name.") var name: String

        func run() async throws {
            try await global.call { try await $0.deleteAllowance(name) }
            if try global.printJSON(["deleted": name]) { return }
            print("allowance \(name) removed")
        }
    }

    /// `1 of 3 used, 42m cooldown`: launches today and the cooldown left, or nil without open limits.
    static func opens(_ allowance: TimeAllowanceInfo) -> String? {
        var parts: [String] = []
        if let opens = allowance.opens { parts.append("\(allowance.opensToday) of \(opens) used") }
        if let wait = allowance.cooldownLeftSeconds { parts.append("\(TextFormat.duration(seconds: wait)) cooldown") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `video-time 22m of 30m left` for each allowance in use or blocking; `gaming 1 of 3 opens
    /// left` for each with launches used or a cooldown running.
    static func statusLines(_ allowances: [TimeAllowanceInfo]) -> [String] {
        let time = allowances.filter { $0.inUse || $0.blocking }.map { allowance in
            let limit = allowance.dailySeconds ?? allowance.weeklySeconds
            if allowance.blocking {
                return "\(allowance.name) used up: \(allowance.profile) blocked until \(TextFormat.clock(allowance.resetsAt))"
            }
            guard let left = allowance.leftSeconds, let limit else { return "\(allowance.name) in use" }
            return "\(allowance.name) \(TextFormat.duration(seconds: left)) of \(TextFormat.duration(seconds: limit)) left"
        }
        let launches = allowances.filter { !$0.blocking && ($0.opensToday > 0 || $0.cooldownLeftSeconds != nil) }.compactMap {
            allowance -> String? in
            var parts: [String] = []
            if let opens = allowance.opens, let left = allowance.opensLeft {
                parts.append(
                    left == 0 ? "no launches left until \(TextFormat.clock(allowance.resetsAt))" : "\(left) of \(opens) launches left")
            }
            if let wait = allowance.cooldownLeftSeconds { parts.append("cooling down, \(TextFormat.duration(seconds: wait)) left") }
            return parts.isEmpty ? nil : "\(allowance.name) " + parts.joined(separator: ", ")
        }
        return time + launches
    }

    /// `30m a day mon-fri, 5h a week, 3 opens`.
    static func summary(_ allowance: TimeAllowanceInfo) -> String {
        var parts: [String] = []
        if let daily = allowance.dailySeconds { parts.append("\(TextFormat.duration(seconds: daily)) a day") }
        if let weekly = allowance.weeklySeconds { parts.append("\(TextFormat.duration(seconds: weekly)) a week") }
        if let opens = allowance.opens { parts.append("\(opens) opens") }
        if let cooldown = allowance.cooldownSeconds { parts.append("\(TextFormat.duration(seconds: cooldown)) apart") }
        return parts.joined(separator: ", ") + (allowance.days == "all" ? "" : " \(allowance.days)")
    }
}
