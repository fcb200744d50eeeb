import ArgumentParser
import Foundation
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
                ["", session.profile, session.origin, session.target == ["local"] ? "" : "for " + session.target.joined(separator: ","), "ends \(TextFormat.clock(session.endsAt, now: status.now))",
                 "\(TextFormat.duration(seconds: session.remainingSeconds)) left", session.strict ? "strict" : "", session.id]
            }, indent: " "))
            for session in status.sessions where !session.apps.isEmpty || !session.missingApps.isEmpty {
                var line = "   \(session.profile) apps: " + (session.apps.isEmpty ? "none installed" : session.apps.joined(separator: ", "))
                // System profiles name launchers most machines lack: a count, the names are in --json.
                if !session.missingApps.isEmpty { line += " (\(session.missingApps.count) named but not installed)" }
                lines.append(line)
            }
        }
        for notice in status.notices { lines.append("  ! \(notice)") }
        if !status.enforcers.isEmpty {
            lines.append("Enforcers:")
            lines.append(TextFormat.table(status.enforcers.map { report in
                let state = report.lastError != nil ? "problem" : (report.applied ? "ok" : "pending")
                return ["", report.name, state, StatusCommand.summary(report)]
            }, indent: " "))
        }
        return lines.joined(separator: "\n")
    }

    /// One line per enforcer: what it holds and where, and its last error.
    static func summary(_ report: EnforcerReport) -> String {
        let details = report.details.mapValues(\.description)
        var parts: [String] = []
        switch report.name {
        case "hosts":
            parts.append("\(report.elements) names")
            if let path = details["path"] { parts.append(path) }
        case "apps":
            parts.append("\(report.elements) programs")
            switch details["mode"] {
            case "fanotify": parts.append("fanotify (execs refused by the kernel)")
            case "proc-connector": parts.append("proc connector (killed at exec)")
            default: parts.append("idle")
            }
            if let fallback = details["fallback"] { parts.append("fanotify unavailable: \(fallback)") }
            if let denials = details["denials"], denials != "0" { parts.append("\(denials) refused") }
            if let terminated = details["terminated"], terminated != "0" { parts.append("\(terminated) stopped") }
            if let frozen = details["frozen"] { parts.append("frozen: \(frozen)") }
        case "unbound":
            // The LAN: what each target blocks, the device groups Unbound knows, and how.
            parts.append("lan \(details["blocking"] ?? "nothing")")
            if let groups = details["groups"], !groups.isEmpty { parts.append("groups: \(groups)") }
            if let unknown = details["unknownGroups"] { parts.append("not in [lan]: \(unknown)") }
            parts.append("\(report.elements) zones")
            if let version = details["version"] { parts.append("Unbound \(version)") }
            if let attempts = details["attempts"], !attempts.isEmpty { parts.append("blocked attempts: \(attempts)") }
        case "dnsmasq":
            parts.append("lan: \(report.elements) names for every client")
            if let path = details["serversFile"] { parts.append(path) }
        default:
            parts.append("\(report.elements) addresses")
            if let mode = details["mode"], mode != "off" { parts.append(mode) }
            if let names = details["names"] { parts.append("\(names) names resolved") }
            if let failing = details["namesFailing"], failing != "0" { parts.append("\(failing) failing") }
            if let last = details["lastResolution"], let date = ISO8601DateFormatter().date(from: last) {
                parts.append("resolved \(TextFormat.clock(date))")
            }
        }
        if let restores = details["restores"], restores != "0" { parts.append("restored \(restores)×") }
        if let error = report.lastError { parts.append("error: \(error)") }
        return parts.joined(separator: "  ")
    }
}
