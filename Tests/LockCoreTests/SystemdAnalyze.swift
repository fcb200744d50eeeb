import Foundation
import TestSupport

/// Runs the real `systemd-analyze calendar` and reads its answers, for differential tests.
enum SystemdAnalyze {
    /// One expression's result: the normalized form and the elapses as UTC instants.
    struct Result {
        var original: String
        var normalized: String
        var elapses: [Date]
    }

    /// The executable, if installed.
    static let path: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (directories + ["/usr/bin", "/bin"])
            .map { $0 + "/systemd-analyze" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var isAvailable: Bool { path != nil }

    /// `TZ=zone systemd-analyze calendar --iterations=N --base-time=@T EXPR…`, one result per
    /// expression, in order. All expressions must be valid.
    static func calendar(_ expressions: [String], base: Date, iterations: Int, zone: String) throws -> [Result] {
        let seconds = Int64(base.timeIntervalSince1970.rounded(.down))
        let child = try ChildProcess(
            path!, ["calendar", "--iterations=\(iterations)", "--base-time=@\(seconds)"] + expressions,
            environment: ["TZ": zone, "LC_ALL": "C", "PATH": "/usr/bin:/bin", "SYSTEMD_COLORS": "0"],
            stdout: .pipe, stderr: .pipe)
        let status = child.wait(timeout: 60)
        let (data, errors) = child.output()
        guard status == 0 else {
            throw Failure(
                message: "systemd-analyze exited \(status.map(String.init) ?? "late"): \(String(decoding: errors, as: UTF8.self))")
        }
        return try parse(String(decoding: data, as: UTF8.self))
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Reads blocks of `Original form:`, `Normalized form:`, `Next elapse:` / `Iter. #k:` and
    /// `(in UTC):` lines. An elapse line is in the zone of `TZ`; when that is not UTC the UTC
    /// line that follows it replaces it.
    private static func parse(_ text: String) throws -> [Result] {
        // Blocks are separated by blank lines; `Original form:` is left out when it equals
        // the normalized form.
        try text.components(separatedBy: "\n\n").filter { $0.contains("Normalized form:") }.map { block in
            var result = Result(original: "", normalized: "", elapses: [])
            var pendingLocal = false
            for rawLine in block.split(separator: "\n") {
                let line = rawLine.trimmingCharacters(in: .whitespaces)
                guard let colon = line.firstIndex(of: ":") else { continue }
                var key = String(line[..<colon])
                if key.hasPrefix("Iter. #") { key = "Next elapse" }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                switch key {
                case "Original form":
                    result.original = value
                case "Normalized form":
                    result.normalized = value
                    if result.original.isEmpty { result.original = value }
                case "Next elapse" where value == "never":
                    break
                case "Next elapse":
                    if value.hasSuffix(" UTC") {
                        result.elapses.append(try instant(value))
                        pendingLocal = false
                    } else {
                        pendingLocal = true
                    }
                case "(in UTC)":
                    guard pendingLocal else { throw Failure(message: "unexpected UTC line: \(line)") }
                    result.elapses.append(try instant(value))
                    pendingLocal = false
                default:
                    continue
                }
            }
            return result
        }
    }

    /// `Wed 2026-11-25 08:30:00 UTC` → instant.
    private static func instant(_ text: String) throws -> Date {
        let parts = text.split(separator: " ")
        guard parts.count == 4, parts[3] == "UTC",
            let date = ISO8601DateFormatter().date(from: "\(parts[1])T\(parts[2])Z")
        else { throw Failure(message: "cannot read timestamp '\(text)'") }
        return date
    }
}
