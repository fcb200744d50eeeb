import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockPlatform
import Logging

/// Hosts an `AppEnforcer` in a process of its own, so that tests and benchmarks can block
/// programs without the test runner ever being the process whose execs wait for a decision.
///
/// Usage: `exec-guard-probe --control FIFO --output FILE [--data-dir DIR]… [--path DIR]…
/// [--user-writable DIR]… [--mount-scope DIR]… [--preference automatic|fanotify|proc-connector] [--grace SECONDS]
/// [--cgroup-root DIR] [--frozen-record FILE]`
///
/// Each line read from the control FIFO is a JSON command:
/// `{"seq": 1, "apps": [{"id": "game", "strict": false, "running": "terminate"}]}` applies a
/// block of those apps (looked up in the app catalog of the data dirs), with `"counted": [{"id":
/// "other"}]` also counting another app's launches (each allowed at once); `{"seq": 2}` with no
/// apps lifts it; `{"seq": 3, "report": true}` only reports. Answers are appended to the
/// output file, one line each: `ready`, `cpu SEQ NANOSECONDS` (the probe's CPU time so far, all
/// threads, for the benchmark) then `applied SEQ REPORT-JSON`, or `error SEQ MESSAGE`; and
/// `denied DENIAL-JSON` for every refusal.
@main
struct ExecGuardProbe {
    struct Command: Decodable {
        struct App: Decodable {
            var id: String
            var strict: Bool?
            var running: BlockedApp.RunningPolicy?
        }
        var seq: Int
        var apps: [App]?
        /// Apps whose launches are counted; the probe allows every launch at once (through a
        /// task, as the daemon's decision goes), so only the guard's path is measured.
        var counted: [App]?
        var report: Bool?
    }

    static func main() async {
        var control: String?
        var output: String?
        var dataDirectories: [String] = []
        var searchPath: [String] = []
        var userWritable: [String] = []
        var mountScope: [String] = []
        var preference = ExecGuard.Preference.automatic
        var grace = 5.0
        var cgroupRoot: String?
        var frozenRecord: String?
        var arguments = CommandLine.arguments.dropFirst()
        while let option = arguments.popFirst() {
            let value = arguments.popFirst() ?? ""
            switch option {
            case "--control": control = value
            case "--output": output = value
            case "--data-dir": dataDirectories.append(value)
            case "--path": searchPath.append(value)
            case "--user-writable": userWritable.append(value)
            case "--mount-scope": mountScope.append(value)
            case "--preference": preference = ExecGuard.Preference(rawValue: value) ?? .automatic
            case "--grace": grace = Double(value) ?? 5
            case "--cgroup-root": cgroupRoot = value
            case "--frozen-record": frozenRecord = value
            default:
                FileHandle.standardError.write(Data("exec-guard-probe: unknown option \(option)\n".utf8))
                exit(2)
            }
        }
        guard let control, let output else {
            FileHandle.standardError.write(Data("exec-guard-probe: --control and --output are required\n".utf8))
            exit(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        let out = Output(path: output)
        let roots = AppCatalog.Roots(
            dataDirectories: dataDirectories, flatpakInstallations: [], snapDirectory: "/nonexistent",
            searchPath: searchPath.isEmpty ? ["/usr/bin", "/bin"] : searchPath, homes: [])
        let enforcer = AppEnforcer(
            settings: AppEnforcer.Settings(
                preference: preference, terminateGrace: .milliseconds(Int(grace * 1000)),
                userWritable: userWritable, cgroupRoot: cgroupRoot,
                frozenRecord: frozenRecord, mountScope: mountScope),
            onDenial: { denial in
                let json = (try? JSONEncoder().encode(denial)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                out.append("denied \(json)")
            },
            onLaunch: { request in
                Task {
                    if request.claim() { request.decide(.allowed) }
                }
            })
        let watch = Task { await enforcer.watch() }
        out.append("ready")
        for await line in lines(of: control) {
            guard let command = try? JSONDecoder().decode(Command.self, from: Data(line.utf8)) else {
                out.append("error 0 unreadable command: \(line)")
                continue
            }
            do {
                if command.report != true {
                    let catalog = AppCatalog(roots: roots)
                    var blocked: [BlockedApp] = []
                    for app in command.apps ?? [] {
                        blocked.append(
                            try catalog.lookup(app.id).blocked(
                                strict: app.strict ?? false,
                                running: app.running ?? .terminate))
                    }
                    var counted: [CountedApp] = []
                    for app in command.counted ?? [] {
                        let found = try catalog.lookup(app.id).blocked()
                        counted.append(
                            CountedApp(
                                id: found.id, name: found.name, executables: found.executables, allowances: ["bench"],
                                strict: app.strict ?? false))
                    }
                    try await enforcer.apply(DesiredBlock(apps: blocked, counted: counted))
                }
                var cpu = timespec()
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
                out.append("cpu \(command.seq) \(Int64(cpu.tv_sec) * 1_000_000_000 + Int64(cpu.tv_nsec))")
                let status = await enforcer.status()
                let report = ProbeReport(
                    name: status.name, applied: status.applied, elements: status.elements,
                    lastError: status.lastError, details: status.details.mapValues(\.description))
                let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
                out.append("applied \(command.seq) \(json)")
            } catch {
                out.append("error \(command.seq) \(error)")
            }
        }
        watch.cancel()
    }

    /// Lines written to the FIFO, read on a thread of their own. The FIFO is opened for reading
    /// and writing so that writers coming and going never make it report end of file.
    static func lines(of fifo: String) -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                let fd = open(fifo, O_RDWR | O_CLOEXEC)
                guard fd >= 0 else {
                    continuation.finish()
                    return
                }
                var pending: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }
                    pending += buffer[0..<count]
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                        pending.removeSubrange(...newline)
                    }
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}

/// The output file, appended to line by line from several threads.
final class Output: Sendable {
    private let fd: Int32

    init(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    }

    /// One line per write with O_APPEND: lines from different threads never interleave.
    func append(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// The enforcer's status as the probe writes it for the tests: details as text.
struct ProbeReport: Codable {
    var name: String
    var applied: Bool
    var elements: Int
    var lastError: String?
    var details: [String: String]
}
