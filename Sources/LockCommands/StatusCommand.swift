import ArgumentParser
import LockProtocol

/// `lockctl status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show active blocks, time remaining and enforcement.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let status = try await global.call { try await $0.status() }
        if try global.printJSON(status) { return }
        print(StatusCommand.render(status))
    }

    static func render(_ status: StatusResponse) -> String {
        var lines: [String] = []
        if status.sessions.isEmpty {
            lines.append("○ idle: nothing is blocked")
        } else {
            let count = status.sessions.count
            lines.append("● \(count) block\(count == 1 ? "" : "s") active, \(status.blockedNames) names blocked")
            lines.append(TextFormat.table(status.sessions.map { session in
                ["", session.profile, session.origin, "ends \(TextFormat.clock(session.endsAt, now: status.now))",
                 "\(TextFormat.duration(seconds: session.remainingSeconds)) left", session.strict ? "strict" : "", session.id]
            }, indent: " "))
        }
        for notice in status.notices { lines.append("  ! \(notice)") }
        if !status.enforcers.isEmpty {
            lines.append("Enforcers:")
            lines.append(TextFormat.table(status.enforcers.map { report in
                let state = report.lastError != nil ? "problem" : (report.applied ? "ok" : "pending")
                var detail = "\(report.elements) names"
                if let path = report.details["path"] { detail += "  \(path)" }
                if let error = report.lastError { detail += "  error: \(error)" }
                return ["", report.name, state, detail]
            }, indent: " "))
        }
        return lines.joined(separator: "\n")
    }
}
