import Foundation
import Glibc
import TestSupport
import Testing

func which(_ program: String) -> String? {
    for directory in ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"] where access("\(directory)/\(program)", X_OK) == 0 {
        return "\(directory)/\(program)"
    }
    return nil
}

@Suite("simplylockd under systemd's protocols")
struct SystemdTests {
    @Test("sd_notify: READY=1 only after blocks are restored and enforced, STATUS= follows, WATCHDOG=1, STOPPING=1")
    func notifyProtocol() throws {
        let root = try TestRoot()
        // A session from an earlier run, whose section someone removed while the daemon was down.
        let first = try DaemonProcess(root: root)
        #expect(try first.lockctl("start", "news", "10m").status == 0)
        try first.kill9()
        try Data("127.0.0.1 localhost\n".utf8).write(to: URL(fileURLWithPath: root.hostsPath))

        let listener = try DatagramListener(path: root.path + "/notify.sock")
        let hostsAtReady = LockedData()
        let environment = ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"]
        // Start without waiting for the socket: the notifications themselves tell when it is ready.
        let daemon = try ChildProcess(
            Binaries.daemon, ["--root", root.path, "--data-dir", Binaries.dataDirectory, "--enforcers", "hosts"],
            environment: ProcessRunner.environment(environment))

        let untilReady = try listener.collect { $0.contains { $0.hasPrefix("READY=1") } }
        hostsAtReady.set(Data(root.hosts().utf8))
        #expect(untilReady.first == "STATUS=restoring state")
        let ready = try #require(untilReady.last)
        let clock = #"([A-Z][a-z]{2} )?\d{2}:\d{2}"#
        #expect(ready.range(of: "^READY=1\nSTATUS=1 block active: news until \(clock)$", options: .regularExpression) != nil, "\(ready)")
        #expect(
            String(decoding: hostsAtReady.get(), as: UTF8.self).contains(" news.ycombinator.com"),
            "READY=1 was sent before the restored block was enforced")

        let client = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "start", "social", "1h"])
        #expect(client.status == 0)
        let later = try listener.collect { messages in
            messages.contains { $0.hasPrefix("STATUS=2 blocks active: news") } && messages.filter { $0 == "WATCHDOG=1" }.count >= 2
        }
        #expect(
            later.contains {
                $0.range(of: "^STATUS=2 blocks active: news until \(clock), social until \(clock)$", options: .regularExpression) != nil
            },
            "\(later)")

        daemon.send(SIGTERM)
        let stopping = try listener.collect { $0.contains { $0.hasPrefix("STOPPING=1") } }
        #expect(stopping.contains("STOPPING=1\nSTATUS=shutting down"))
        #expect(daemon.wait(timeout: 15) == 0)
    }

    @Test(
        "socket activation: the daemon serves on the socket systemd-socket-activate passes in",
        .enabled(if: which("systemd-socket-activate") != nil, "systemd-socket-activate is not installed"))
    func socketActivation() throws {
        let root = try TestRoot()
        try FileManager.default.createDirectory(atPath: root.path + "/run/simplylock", withIntermediateDirectories: true)
        // systemd-socket-activate binds the socket at the default path and starts the daemon on
        // the first connection, which waits in the backlog until the daemon accepts it.
        let daemon = try DaemonProcess(
            root: root,
            wrapper: [
                which("systemd-socket-activate")!, "-l", root.socketPath,
                "--fdname=control",
            ])
        #expect(try daemon.lockctl("start", "video", "5m").status == 0)
        #expect(root.hosts().contains(" youtube.com"))
        #expect(daemon.log().contains("listening on the socket passed by systemd"))
        #expect(!daemon.log().contains("socket=\(root.socketPath)"))
        #expect(try daemon.lockctl("status").stdout.contains("video"))
        try daemon.stop()
        // The socket belongs to the service manager: the daemon never removes it.
        var info = stat()
        #expect(lstat(root.socketPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
    }

    @Test(
        "journal: structured entries with SIMPLYLOCK_* fields when stderr is the journal",
        .enabled(
            if: getuid() == 0 && which("unshare") != nil && FileManager.default.fileExists(atPath: "/run/systemd"),
            "needs root, unshare -m and /run/systemd to stand in for journald"))
    func journalEntries() throws {
        let root = try TestRoot()
        let fakeRun = root.path + "/fake-run-systemd"
        try FileManager.default.createDirectory(atPath: fakeRun + "/journal", withIntermediateDirectories: true)
        let journal = try DatagramListener(path: fakeRun + "/journal/socket")
        let stderrFile = root.path + "/stderr-as-journal"
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        var info = stat()
        #expect(stat(stderrFile, &info) == 0)
        // In a private mount namespace our directory is /run/systemd, so libsystemd's
        // sd_journal_sendv reaches our socket; stderr is the file JOURNAL_STREAM names.
        let wrapper = [
            which("unshare")!, "-m", "--propagation", "private", "sh", "-c",
            "mount --bind '\(fakeRun)' /run/systemd && exec \"$0\" \"$@\" 2>>'\(stderrFile)'",
        ]
        // journald reads all the time; a datagram socket nobody reads fills up after a few
        // entries and then blocks the sender.
        let received = LockedEntries()
        let drain = Thread {
            while !received.stopped {
                if let datagram = journal.receive(timeout: 0.1), let fields = try? Self.fields(datagram) { received.append(fields) }
            }
        }
        drain.start()
        defer { received.stop() }
        let daemon = try DaemonProcess(root: root, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"], wrapper: wrapper)
        #expect(try daemon.lockctl("start", "news", "5m").status == 0)
        try waitUntil("a 'session started' journal entry") { received.all.contains { $0["MESSAGE"] == "session started" } }
        let entries = received.all
        let started = try #require(entries.first { $0["MESSAGE"] == "session started" })
        #expect(started["SIMPLYLOCK_PROFILE"] == "news")
        #expect(started["SIMPLYLOCK_ORIGIN"] == "manual")
        #expect(started["SIMPLYLOCK_SESSION"]?.count == 12)
        #expect(started["PRIORITY"] == "6")
        #expect(started["SYSLOG_IDENTIFIER"] == "simplylockd")
        #expect(started["CODE_FILE"]?.hasSuffix("SessionService.swift") == true)
        #expect(entries.contains { $0["MESSAGE"] == "starting" })
        // Everything went to the journal; nothing fell back to stderr.
        #expect((try? String(contentsOfFile: stderrFile, encoding: .utf8))?.isEmpty == true)
    }

    /// journald's native protocol: `NAME=value\n`, or `NAME\n` + 64-bit little-endian length +
    /// value + `\n` for values with newlines.
    static func fields(_ bytes: [UInt8]) throws -> [String: String] {
        var fields: [String: String] = [:]
        var index = 0
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") }) else {
                throw TestFailure("malformed journal datagram")
            }
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            if bytes[end] == UInt8(ascii: "=") {
                guard let lineEnd = bytes[(end + 1)...].firstIndex(of: UInt8(ascii: "\n")) else { throw TestFailure("malformed") }
                fields[name] = String(decoding: bytes[(end + 1)..<lineEnd], as: UTF8.self)
                index = lineEnd + 1
            } else {
                let length = bytes[(end + 1)..<(end + 9)].reversed().reduce(0) { $0 << 8 | Int($1) }
                let start = end + 9
                fields[name] = String(decoding: bytes[start..<(start + length)], as: UTF8.self)
                index = start + length + 1
            }
        }
        return fields
    }
}

final class LockedEntries: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [[String: String]] = []
    private var done = false
    func append(_ entry: [String: String]) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }
    var all: [[String: String]] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
    func stop() {
        lock.lock()
        done = true
        lock.unlock()
    }
    var stopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return done
    }
}
