import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

@Suite("The control API on the Unix socket")
struct ControlAPITests {
    @Test("malformed HTTP gets a JSON 400 and the daemon keeps serving")
    func malformedRequests() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        for garbage in [
            "GARBAGE\r\n\r\n", "GET /v1/status HTTP/9.9\r\n\r\n", "POST /v1/sessions HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
            "\u{0}\u{1}\u{2}\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
        ] {
            let socket = try RawSocket(path: root.socketPath)
            socket.send(garbage)
            let answer = socket.readAll()
            socket.close()
            #expect(answer.hasPrefix("HTTP/1.1 400"), "answer to \(garbage.debugDescription): \(answer)")
            #expect(answer.contains("\"code\":\"bad_request\""), "answer: \(answer)")
        }
        // Bad JSON in a well-formed request.
        let socket = try RawSocket(path: root.socketPath)
        socket.send("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{oops")
        let answer = socket.readAll()
        socket.close()
        #expect(answer.hasPrefix("HTTP/1.1 400"))
        #expect(answer.contains("invalid request body"))
        #expect(try daemon.lockctl("status").status == 0)
        #expect(try daemon.lockctl("start", "news", "1m").status == 0)
    }

    @Test("unknown endpoints and wrong methods get JSON 404 and 405")
    func notFound() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        _ = daemon
        for (request, status) in [
            ("GET /v1/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404"),
            ("PUT /v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", "405"),
            ("GET /v1/profiles/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404"),
        ] {
            let socket = try RawSocket(path: root.socketPath)
            socket.send(request)
            let answer = socket.readAll()
            socket.close()
            #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(answer)")
            #expect(answer.contains("{\"error\":{"), "\(answer)")
        }
    }

    @Test(
        "curl can read the status over the socket",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed"))
    func curl() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "5m").status == 0)
        let result = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--unix-socket", root.socketPath, "http://localhost/v1/status"])
        #expect(result.status == 0)
        #expect(try result.decode(StatusResponse.self).sessions.first?.profile == "news")
    }

    @Test("a stale socket file is replaced; a live one or a non-socket is never removed")
    func staleSocket() throws {
        let root = try TestRoot()
        try RawSocket.makeStale(at: root.socketPath)
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("status").status == 0)

        // A second daemon on another state directory but the same socket must refuse.
        let second = try ProcessRunner.run(
            Binaries.daemon,
            [
                "--root", root.path, "--state-dir", root.path + "/state2",
                "--data-dir", Binaries.dataDirectory, "--enforcers", "hosts",
            ], timeout: 20)
        #expect(second.status != 0)
        #expect(second.stderr.contains("already listening"), "\(second)")
        #expect(try daemon.lockctl("status").status == 0)
        try daemon.stop()

        // Not a socket: refuse to start rather than delete someone's file.
        try root.write("run/simplylock/lockctl.sock", "important\n")
        let refused = try ProcessRunner.run(
            Binaries.daemon, ["--root", root.path, "--data-dir", Binaries.dataDirectory, "--enforcers", "hosts"], timeout: 20)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not a socket"), "\(refused)")
        #expect((try? String(contentsOfFile: root.socketPath, encoding: .utf8)) == "important\n")
    }

    @Test("lockctl honours --socket and SIMPLYLOCK_SOCKET")
    func socketOverrides() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        _ = daemon
        let viaFlag = try ProcessRunner.run(Binaries.lockctl, ["status", "--socket", root.socketPath])
        #expect(viaFlag.status == 0)
        let viaEnvironment = try ProcessRunner.run(Binaries.lockctl, ["status"], environment: ["SIMPLYLOCK_SOCKET": root.socketPath])
        #expect(viaEnvironment.status == 0)
        let wrong = try ProcessRunner.run(Binaries.lockctl, ["status", "--socket", root.path + "/nope.sock"])
        #expect(wrong.status == 3)
    }
}

@Suite("Large answers")
struct LargeAnswerTests {
    @Test("a 10 000-domain profile comes through whole (the server never closes before the client has read it)")
    func largeProfile() throws {
        let root = try TestRoot()
        let domains = (0..<10_000).map { "    \"d\(String(format: "%05d", $0)).bench.example\"," }.joined(separator: "\n")
        try root.write("etc/simplylock/profiles.d/big.toml", "name = \"big\"\ndomains = [\n\(domains)\n]\n")
        let daemon = try DaemonProcess(root: root)
        let profile = try daemon.decode(ProfileInfo.self, "profiles", "show", "big")
        #expect(profile.expandedDomains?.count == 10_000)
        #expect(profile.expandedDomains?.last == "d09999.bench.example")
        let list = try daemon.lockctl("profiles", "list")
        #expect(list.status == 0)
        #expect(list.stdout.contains("big"))
        #expect(try daemon.lockctl("start", "big", "5m").status == 0)
        #expect(root.hosts().contains(" www.d09999.bench.example"))
    }
}
