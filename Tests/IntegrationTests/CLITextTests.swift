import Foundation
import Glibc
import TestSupport
import Testing

/// Every help text and a set of error texts of lockctl, compared with the snapshots in
/// Tests/Snapshots: a change of wording shows up as a diff in review. After a deliberate change,
/// `UPDATE_SNAPSHOTS=1 swift test --skip-build --filter CLITextTests` writes them again.
@Suite("lockctl help and error texts (snapshots)")
struct CLITextTests {
    static let snapshots = TestTools.repository + "/Tests/Snapshots"
    static let update = ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] != nil
    /// A fixed width, no colours, a fixed zone: the texts must not depend on the terminal.
    static let environment = ["COLUMNS": "100", "NO_COLOR": "1", "TZ": "UTC"]

    /// Every command's path (`["schedules", "add"]`), from lockctl's own description of itself.
    static func commandPaths() throws -> [[String]] {
        let dump = try ProcessRunner.run(Binaries.lockctl, ["--experimental-dump-help"])
        let tool = try JSONDecoder().decode(HelpDump.self, from: Data(dump.stdout.utf8))
        var paths: [[String]] = []
        func walk(_ command: HelpDump.Command, _ path: [String]) {
            for child in command.subcommands ?? [] where child.commandName != "help" {
                paths.append(path + [child.commandName])
                walk(child, path + [child.commandName])
            }
        }
        walk(tool.command, [])
        return paths
    }

    /// Compares `text` with the snapshot `name`, showing a diff when they differ.
    static func compare(_ text: String, with name: String) throws {
        let path = snapshots + "/" + name
        if update {
            try FileManager.default.createDirectory(atPath: snapshots, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        guard expected != text else { return }
        let actual = NSTemporaryDirectory() + "simplylock-snapshot-" + UUID().uuidString
        try text.write(toFile: actual, atomically: true, encoding: .utf8)
        defer { unlink(actual) }
        let diff = try ProcessRunner.run("/usr/bin/diff", ["-u", path, actual])
        Issue.record("\(name) differs from the snapshot (UPDATE_SNAPSHOTS=1 writes it again):\n\(diff.stdout)")
    }

    static func transcript(_ arguments: [String], root: TestRoot? = nil) throws -> String {
        let full = (root.map { ["--root", $0.path] } ?? []) + arguments
        let result = try ProcessRunner.run(Binaries.lockctl, full, environment: environment)
        var text = "$ lockctl \(arguments.joined(separator: " "))\n"
        if !result.stdout.isEmpty { text += result.stdout + (result.stdout.hasSuffix("\n") ? "" : "\n") }
        if !result.stderr.isEmpty { text += result.stderr + (result.stderr.hasSuffix("\n") ? "" : "\n") }
        text += "[exit \(result.status)]\n\n"
        return mask(text, root: root)
    }

    /// Times, durations counted from now and session ids change from run to run.
    static func mask(_ text: String, root: TestRoot?) -> String {
        var masked = text
        if let root { masked = masked.replacingOccurrences(of: root.path, with: "ROOT") }
        let patterns = [
            (#"\b([A-Z][a-z]{2} )?\d{2}:\d{2}\b"#, "HH:MM"), (#"\b(\d+[dhm])+(\d+s)?( from now| left)"#, "DURATION$3"),
            (#"\b[0-9a-f]{12}\b"#, "SESSION"),
        ]
        for (pattern, template) in patterns {
            let regex = try! NSRegularExpression(pattern: pattern)
            masked = regex.stringByReplacingMatches(in: masked, range: NSRange(masked.startIndex..., in: masked), withTemplate: template)
        }
        return masked
    }

    @Test("the help of every command")
    func helpTexts() throws {
        var text = try Self.transcript(["--help"])
        for path in try Self.commandPaths() { text += try Self.transcript(path + ["--help"]) }
        try Self.compare(text, with: "lockctl-help.txt")
        // Only the parser's usage lines may be longer than the terminal (they are never cut).
        let long = text.split(separator: "\n").filter { $0.count > 100 && !$0.hasPrefix("USAGE: ") }
        #expect(long.isEmpty, "help lines longer than the terminal: \(long)")
        #expect(Self.defaultsSaidTwice(in: text).isEmpty, "ArgumentParser adds (default: …) itself")
        let twice = "  --cooldown <duration>   Show it again only after this long (default 1m).\n                          (default: 1m)\n"
        #expect(Self.defaultsSaidTwice(in: twice).count == 1, "the check finds what it looks for")
    }

    /// The options whose help text gives the default that ArgumentParser then adds again as
    /// `(default: …)` (`--cooldown`'s said "(default 1m). (default: 1m)").
    static func defaultsSaidTwice(in help: String) -> [String] {
        var options: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  -") || line.hasPrefix("  <") {
                options.append(String(line))
            } else if line.hasPrefix(String(repeating: " ", count: 10)), !options.isEmpty {
                options[options.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return options.filter { option in
            guard let added = option.range(of: "(default: ", options: .backwards) else { return false }
            let value = option[added.upperBound...].prefix { $0 != ")" }
            let before = option[..<added.lowerBound].lowercased()
            return before.contains("default \(value.lowercased())") || before.contains("default: \(value.lowercased())")
        }
    }

    @Test("simplylockd --help and --version print and exit 0; a usage error is one line, one hint, exit 64")
    func daemonHelp() throws {
        let help = try ProcessRunner.run(Binaries.daemon, ["--help"])
        #expect(help.status == 0, "\(help)")
        #expect(help.stdout.hasPrefix("OVERVIEW: "), "\(help)")
        #expect(help.stdout.contains("--check-config") && help.stderr.isEmpty, "\(help)")
        #expect(Self.defaultsSaidTwice(in: help.stdout).isEmpty, "ArgumentParser adds (default: …) itself")
        // Every enforcer the daemon can run is named, however ArgumentParser wraps the line.
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for name in ["hosts", "dns", "connections", "nftables", "apps", "bpf", "unbound", "dnsmasq"] {
            #expect(flat.contains(" \(name),") || flat.contains(" \(name));") || flat.contains("(\(name),"), "--enforcers omits \(name)")
        }
        let version = try ProcessRunner.run(Binaries.daemon, ["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty, "\(version)")
        let bogus = try ProcessRunner.run(Binaries.daemon, ["--bogus"])
        #expect(bogus.status == 64, "\(bogus)")
        #expect(bogus.stderr.hasPrefix("simplylockd: unknown option '--bogus'") && bogus.stderr.contains("\nhint: "), "\(bogus)")
    }

    @Test("usage errors of every command: one line, one hint, no usage dump")
    func usageErrors() throws {
        var text = ""
        for path in try Self.commandPaths() { text += try Self.transcript(path + ["--bogus"]) }
        for arguments in [
            ["stauts"], ["stat"], ["profiles", "lst"], ["schedules", "ad", "x"], ["extend", "focus", "-5m"],
            ["start", "news", "-5m"], ["start", "news"], ["start", "news", "5x"], ["start", "news", "5m", "--until", "17:00"],
            ["extend", "focus"], ["history", "--limit", "many"], ["stop"], ["stop", "--all", "news"],
            ["schedules", "add", "x", "--profile", "news", "--on", "daily"],
            ["schedules", "add", "x", "--profile", "news", "--days", "mon", "--from", "25:00", "--to", "10:00"],
            ["schedules", "edit", "x"], ["pomodoro", "start", "--profile", "news", "--focus", "-5m"],
            ["profiles", "edit", "x"], ["--json", "start", "news"],
        ] {
            text += try Self.transcript(arguments)
        }
        try Self.compare(text, with: "lockctl-usage-errors.txt")
        // The shape, whatever the wording: `lockctl: …`, at most one hint, exit 2.
        for block in text.components(separatedBy: "\n\n") where block.contains("[exit 2]") && !block.contains("--json") {
            let lines = block.split(separator: "\n").dropFirst().dropLast()
            #expect(lines.first?.hasPrefix("lockctl: ") == true, "\(block)")
            #expect(lines.count <= 2 && (lines.count < 2 || lines.last?.hasPrefix("hint: ") == true), "\(block)")
        }
    }

    @Test("errors from the daemon read like lockctl's own; internal field names do not leak")
    func daemonErrors() throws {
        let root = try TestRoot()
        var text = try Self.transcript(["status"], root: root)  // nobody answers yet
        let daemon = try DaemonProcess(root: root)
        for arguments in [
            ["start", "ghost", "5m"], ["start", "news,ghost", "5m"], ["start", "news", "1h", "--strict"],
            ["start", "news", "5m"], ["stop", "news"], ["stop", "nothing"], ["stop", "--all"], ["extend", "news", "400d"],
            ["extend", "nothing", "5m"], ["start", "social", "400d"], ["check", "bad..name"], ["profiles", "show", "ghost"],
            ["profiles", "add-domain", "social", "x.com"], ["profiles", "create", "mine", "--domain", "bad..name"],
            ["profiles", "create", "mine", "--service", "yotube"], ["services", "yotube"],
            ["schedules", "show", "ghost"], ["schedules", "edit", "ghost", "--to", "10:00"],
            ["schedules", "add", "x", "--profile", "ghost", "--on", "daily", "--length", "1h"],
            ["schedules", "add", "x", "--profile", "news", "--on", "daily", "--for", "1h"],
            ["pomodoro", "pause"], ["--json", "stop", "news"],
        ] {
            text += try Self.transcript(arguments, root: root)
        }
        _ = try daemon.stop()
        try Self.compare(text, with: "lockctl-daemon-errors.txt")
        for leaked in ["seconds:", "warnSeconds", "for:", "duration:", "\"name\":"] {
            #expect(!text.contains("lockctl: \(leaked)"), "an internal field name leaks: \(leaked)")
        }
    }
}

/// What `--experimental-dump-help` says of lockctl, the part the tests read: each command's name
/// and its subcommands (swift-argument-parser's `ToolInfoV0`, which it does not export).
private struct HelpDump: Decodable {
    struct Command: Decodable {
        var commandName: String
        var subcommands: [Command]?
    }
    var command: Command
}
