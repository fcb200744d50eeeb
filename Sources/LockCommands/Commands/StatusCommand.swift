import ArgumentParser
import Foundation
import LockClient
import LockCore
import LockProtocol

/// `lockctl status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show active blocks, time remaining and enforcement.",
        discussion: """
            The first line counts the names the active blocks cover; each enforcer's row says what it holds \
            (the hosts file also lists use-application-dns.net while anything is blocked, so Firefox's own DNS \
            over HTTPS stands down). With --watch the view is drawn again whenever something happens, and \
            each second while a block is shown (with --json or --format: one status per line), until \
            simplylockd stops; the daemon is asked only when something happens. --format gives one line \
            for status bars; --quiet only an exit status (0 a block is active, 3 none is).
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Keep the view open: drawn again on every event, and each second while a block is shown (its time left counts down).")
    var watch = false

    @Option(
        help: ArgumentHelp(
            "One line for status bars: line (text), waybar (JSON), i3blocks (full text, short text, colour).",
            valueName: "format"),
        completion: .list(StatusLine.Format.allCases.map(\.rawValue)))
    var format: String?

    @Flag(name: .shortAndLong, help: "Print nothing; exit 0 when a block is active, 3 when none is (or simplylockd is not reachable).")
    var quiet = false

    func validate() throws {
        if let format, StatusLine.Format(rawValue: format) == nil {
            throw ValidationError(
                "--format: \"\(format)\" is not one of \(StatusLine.Format.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if format != nil, global.json { throw ValidationError("give either --json or --format, not both") }
        if quiet, watch || format != nil || global.json { throw ValidationError("--quiet prints nothing: give it alone") }
    }

    func run() async throws {
        if quiet {
            // Like `systemctl is-active --quiet`: the answer is the exit status alone.
            let status = try? global.client.fetch(Endpoints.status)
            throw ExitCode(status?.sessions.isEmpty == false ? ExitCodes.success : ExitCodes.inactive)
        }
        let lineFormat = format.flatMap(StatusLine.Format.init(rawValue:))
        if watch { return try watchStatus(lineFormat) }
        let status = try await global.call { try await $0.status() }
        if let lineFormat { return print(StatusLine.render(status, format: lineFormat)) }
        if try global.printJSON(status) { return }
        print(StatusCommand.render(status))
    }

    /// Draws the status, then again after each event from the daemon's event stream and each
    /// second while a block is shown (`StatusWatch`). With --json or --format, one status per
    /// line. Ends when the daemon shuts down.
    private func watchStatus(_ lineFormat: StatusLine.Format?) throws {
        let json = global.json
        let watch = StatusWatch(client: global.client) { status in
            if let lineFormat {
                print(StatusLine.render(status, format: lineFormat))
            } else if json {
                print(JSONText.compact(status))
            } else {
                // Home, clear: redraw in place like watch(1).
                print((Terminal.colours ? "\u{1B}[H\u{1B}[2J" : "\n") + StatusCommand.render(status))
            }
            fflush(nil)
        }
        do { try watch.run() } catch { throw CommandFailure(error, unreachableHint: global.unreachableHint) }
    }

    static func render(_ status: StatusResponse, colours: Bool = Terminal.colours) -> String {
        var lines: [String] = []
        if status.sessions.isEmpty {
            lines.append("○ idle: nothing is blocked")
        } else {
            let dot = Terminal.paint("●", .green, enabled: colours)
            let count = TextFormat.count(status.sessions.count, "block")
            lines.append("\(dot) \(count) active, \(TextFormat.count(status.blockedNames, "name")) blocked")
            // The FOR column only when a block is aimed beyond this machine (no empty columns).
            let aimed = status.sessions.contains { $0.target != ["local"] }
            var rows = [["PROFILE", "ORIGIN"] + (aimed ? ["FOR"] : []) + ["ENDS", "LEFT", "STRICT", "SESSION"]]
            for session in status.sessions {
                rows.append(
                    [session.profile, session.origin] + (aimed ? [session.target.joined(separator: ",")] : [])
                        + [
                            TextFormat.clock(session.endsAt, now: status.now),
                            TextFormat.duration(seconds: session.remainingSeconds), session.strict ? "yes" : "no", session.id,
                        ])
            }
            lines.append(TextFormat.table(rows, indent: "  ", header: true))
            for session in status.sessions where !session.apps.isEmpty || !session.missingApps.isEmpty {
                var line = "  \(session.profile) apps: " + (session.apps.isEmpty ? "none installed" : session.apps.joined(separator: ", "))
                // System profiles name launchers most machines lack: a count, the names are in --json.
                if !session.missingApps.isEmpty { line += " (\(session.missingApps.count) named but not installed)" }
                if session.appsNotBlocked != nil, !session.apps.isEmpty { line += " (NOT blocked)" }
                lines.append(line)
            }
        }
        for session in status.sessions { if let reason = session.notInForce { lines.append("  ! \(session.profile): \(reason)") } }
        for notice in status.notices { lines.append("  ! \(notice)") }
        // Allowances being used or spent (`video-time 22m of 30m left`, `gaming 1 of 3 launches left`).
        for line in AllowancesCommand.statusLines(status.allowances ?? []) { lines.append("  \(line)") }
        if !status.enforcers.isEmpty {
            lines.append("")
            var rows = [["ENFORCER", "STATE", "HOLDS", "DETAILS"]]
            for report in status.enforcers {
                let state = Self.state(report)
                let colour: Terminal.Colour = state == "ok" ? .green : state == "problem" ? .red : .dim
                rows.append([
                    report.name, Terminal.paint(state, colour, enabled: colours), holds(report, status: status),
                    details(report),
                ])
            }
            lines.append(TextFormat.table(rows, indent: "  ", header: true))
        }
        return lines.joined(separator: "\n")
    }

    /// `ok`, `idle` or `problem`, as the daemon judged it (doctor shares the judgement).
    static func state(_ report: EnforcerReport) -> String {
        report.state ?? (report.lastError != nil ? "problem" : report.applied ? "ok" : "idle")
    }

    /// What an enforcer holds, in numbers that agree with the first line.
    static func holds(_ report: EnforcerReport, status: StatusResponse) -> String {
        func number(_ key: String) -> Int? {
            if case .number(let value)? = report.details[key] { return Int(value) }
            return nil
        }
        switch report.name {
        case "hosts":
            // The section lists the blocked names and, beside them, names always listed with
            // a block (Firefox's DoH canary); said separately so the counts agree.
            let extra = report.elements - status.blockedNames
            let also = report.details["alsoListed"]?.description
            if extra > 0 {
                return "\(TextFormat.count(status.blockedNames, "name")) + \(also ?? TextFormat.count(extra, "other name"))"
            }
            return TextFormat.count(report.elements, "name")
        case "nftables":
            var text = TextFormat.count(report.elements, "address", "addresses")
            if let names = number("names"), names > 0 { text += " for \(TextFormat.count(names, "name"))" }
            return text
        case "dns":
            return TextFormat.count(report.elements, "name")
        case "apps":
            // Elements are executables: an app may have several (a wrapper and its target).
            var text = TextFormat.count(report.elements, "program")
            // Apps whose launches open limits count are held too, though none is blocked; they
            // are counted only by a running fanotify guard (the proc connector cannot).
            if let counted = report.details["counted"]?.description.split(separator: ", "), !counted.isEmpty {
                let counting =
                    report.details["mode"]?.description == "fanotify"
                    && report.details["launches"].map { $0.description != "not counted" } == true
                text += ", launches of \(TextFormat.count(counted.count, "app")) " + (counting ? "counted" : "NOT counted")
            }
            return text
        case "unbound":
            return TextFormat.count(report.elements, "zone")
        case "dnsmasq":
            return TextFormat.count(report.elements, "name")
        default:
            return TextFormat.count(report.elements, "element")
        }
    }

    /// Where and how: path, mode, failures, last resolution, repairs, and what is wrong.
    static func details(_ report: EnforcerReport) -> String {
        let details = report.details
        var parts: [String] = []
        if let path = details["path"] { parts.append(path.description) }
        if report.name == "apps" {
            switch details["mode"]?.description {
            case "fanotify": parts.append("fanotify (execs refused by the kernel)")
            case "proc-connector": parts.append("proc connector (killed at exec)")
            default: break
            }
            if let fallback = details["fallback"] { parts.append("fanotify unavailable: \(fallback)") }
            if case .number(let denials)? = details["denials"], denials > 0 { parts.append("\(Int(denials)) refused") }
            if case .number(let stopped)? = details["terminated"], stopped > 0 { parts.append("\(Int(stopped)) stopped") }
            // Execs decided without a check (too many at once, too slow to read): say so.
            if case .number(let count)? = details["refusedUnchecked"], count > 0 { parts.append("\(Int(count)) refused unchecked") }
            if case .number(let count)? = details["allowedUnchecked"], count > 0 { parts.append("\(Int(count)) allowed unchecked") }
            if let sentinel = details["sentinel"] { parts.append("sentinel \(sentinel)") }
            if let frozen = details["frozen"] { parts.append("frozen: \(frozen)") }
        } else if let mode = details["mode"]?.description, mode != "off", mode != "idle" {
            parts.append(mode)
        }
        if let capped = details["capped"] { parts.append(capped.description) }
        if report.name == "unbound" {
            // The LAN: what each target blocks, the device groups Unbound knows, and its version.
            parts.append("lan \(details["blocking"]?.description ?? "nothing")")
            if let groups = details["groups"]?.description, !groups.isEmpty { parts.append("groups: \(groups)") }
            if let unknown = details["unknownGroups"] { parts.append("not in [lan]: \(unknown)") }
            if let version = details["version"] { parts.append("Unbound \(version)") }
            if let attempts = details["attempts"]?.description, !attempts.isEmpty { parts.append("blocked attempts: \(attempts)") }
        }
        if report.name == "dnsmasq" {
            parts.append("for every client")
            if let path = details["serversFile"] { parts.append(path.description) }
        }
        if report.name == "dns" {
            if let lists = details["lists"] { parts.append("lists \(lists)") }
            if let port = details["port"] { parts.append("port \(port)") }
            if let redirect = details["redirect"] { parts.append("redirect \(redirect)") }
            if case .number(let blocked)? = details["blocked"], case .number(let queries)? = details["queries"] {
                parts.append("\(TextFormat.count(Int(blocked), "query", "queries")) of \(Int(queries)) blocked")
            }
            if let missing = details["listsMissing"] { parts.append("lists not loaded: \(missing)") }
        }
        if case .number(let failing)? = details["namesFailing"], failing > 0 { parts.append("\(Int(failing)) not resolved") }
        if let last = details["lastResolution"]?.description, let date = Timestamp.parse(last) {
            parts.append("resolved \(TextFormat.clock(date))")
        }
        if case .number(let restores)? = details["restores"], restores > 0 { parts.append("restored \(Int(restores))×") }
        if let problem = report.problem ?? report.lastError { parts.append("error: \(problem)") }
        return parts.joined(separator: ", ")
    }
}
