import Foundation
import Glibc
import TestSupport
import Testing

/// `lockctl ui`'s loopback server takes a bounded number of connections, like the daemon's
/// control socket (the limits and the request deadline are the same code, LockServing): any
/// local user can connect to loopback, so an ordinary user (nobody, through setpriv) floods it.
@Suite("lockctl ui: connection limits", .serialized)
struct UIConnectionLimitTests {
    static let unavailableReason: String? =
        TestTools.unsupported { getuid() != 0 ? "needs root (setpriv to nobody)" : nil }
        ?? TestTools.missing {
            (["/usr/bin/setpriv", "/usr/bin/python3"] as [String]).first { access($0, X_OK) != 0 }.map { "\($0) is missing" }
        }

    /// Opens `count` connections as nobody and holds them `hold` seconds; writes how many were
    /// answered 503 without sending anything to the file `report` first.
    static let flood = """
        import socket, sys, time
        port, count, hold, report = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
        time.sleep(1.5)
        refused = 0
        for s in held:
            try:
                if s.recv(64, socket.MSG_PEEK | socket.MSG_DONTWAIT).startswith(b"HTTP/1.1 503"):
                    refused += 1
            except BlockingIOError:
                pass
        with open(report, "w") as f:
            f.write(str(refused))
        time.sleep(hold)
        """

    /// Sends half a request as nobody and prints how long the server let it wait (seconds).
    static let slowSender = """
        import socket, sys, time
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        s.sendall(b"GET / HTTP/1.1\\r\\nHost: 127.0.0.1")
        start = time.monotonic()
        s.settimeout(30)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
        print(round(time.monotonic() - start, 1), flush=True)
        """

    static func asNobody(_ script: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script] + arguments,
            environment: ProcessRunner.environment(), stdout: .pipe, stderr: .pipe)
    }

    @Test(
        "of 65 connections from nobody the 65th is refused with 503 at once; while they are held the owner is refused too, and served once they close; a half-sent request is cut after the deadline",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func connectionsAreBounded() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let ui = try UIServerProcess(root: root)
        _ = daemon

        let shared = root.path + "/nobody"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(shared, 0o777)
        let report = shared + "/flood-report"
        let flood = try Self.asNobody(Self.flood, [String(ui.port), "65", "3", report])
        try waitUntil("the flood to connect and look", timeout: 15) { FileManager.default.fileExists(atPath: report) }
        // While the 64 are held, the owner's own request is refused as well, with the reason.
        let busy = try ui.request("GET", "/?token=\(ui.token)", headers: [("Host", ui.host)])
        #expect(busy.status == 503 && busy.body.contains("as many connections as it takes (64)"), "\(busy.raw)")
        guard let status = flood.wait(timeout: 20) else { throw TestFailure("the flood did not end") }
        #expect(status == 0, "\(String(decoding: flood.output().stderr, as: UTF8.self))")
        try waitUntil("the report") { ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").count == 1 }
        #expect(try String(contentsOfFile: report, encoding: .utf8) == "1", "one of 65 refused at once")

        // The connections are gone: the server answers, the token (unspent while refused) works.
        try waitUntil("the slots to come back") { TCP.established(port: ui.port) == 0 }
        #expect(try ui.login().hasPrefix("simplylock_ui_"))

        let slow = try Self.asNobody(Self.slowSender, [String(ui.port)])
        guard slow.wait(timeout: 30) == 0 else { throw TestFailure("the slow sender was not cut within 30 s") }
        let waited = Double(String(decoding: slow.output().0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect((9...15).contains(waited), "cut after \(waited) s (the deadline is 10 s)")
        #expect(try ui.stop() == 0, "\(ui.stderr)")
    }
}

extension TCP {
    /// Connections established to `port` on loopback, seen from the server's side.
    static func established(port: Int) -> Int {
        let portHex = String(format: "%04X", port)
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // local_address, rem_address, st (01 = ESTABLISHED)
                guard fields.count > 3, fields[3] == "01" else { continue }
                if fields[1].split(separator: ":").last.map(String.init) == portHex { count += 1 }
            }
        }
        return count
    }
}
