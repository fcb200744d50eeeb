import Foundation
import Glibc
import TestSupport
import Testing

@testable import LockDaemon

/// Flushing the machine's resolver caches, against stand-ins: systemd-resolved's D-Bus call on
/// a private `dbus-daemon` (systemd is not PID 1 here), nscd's invalidation on a socket of
/// our own.
@Suite("resolver caches")
struct ResolverCacheTests {
    static let standIn = TestTools.repository + "/Tests/Scripts/resolve1-standin.py"

    static let dbusMissing: String? = TestTools.missing {
        if TestTools.which("dbus-daemon") == nil { return "dbus-daemon is not installed (apt-get install dbus-daemon)" }
        let probe = try? ProcessRunner.run("/usr/bin/python3", ["-c", "import dbus, dbus.service, gi.repository.GLib"], timeout: 20)
        return probe?.status == 0 ? nil : "Debian's python3-dbus and python3-gi are not installed"
    }

    /// A private bus at `directory/bus`, and whatever else the test starts; all stopped by pid.
    final class PrivateBus {
        let directory: String
        let address: String
        private var children: [ChildProcess] = []

        init(directory: String) throws {
            self.directory = directory
            address = "unix:path=\(directory)/bus"
            let daemon = try ChildProcess(
                "/usr/bin/dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=\(address)"],
                environment: ProcessRunner.environment(), stderr: .file(directory + "/dbus.log"))
            children.append(daemon)
            try waitUntil("the private bus to listen", timeout: 10) { access(directory + "/bus", F_OK) == 0 }
        }

        /// Starts the resolve1 stand-in; returns it once it owns its name.
        func standIn(mode: String = "ok") throws -> ChildProcess {
            let ready = directory + "/ready-\(children.count)"
            let child = try ChildProcess(
                "/usr/bin/python3", [ResolverCacheTests.standIn, address, directory + "/calls", ready, mode],
                environment: ProcessRunner.environment(), stderr: .file(directory + "/standin.log"))
            children.append(child)
            try waitUntil("the stand-in to own org.freedesktop.resolve1", timeout: 20) {
                if child.poll() != nil { throw TestFailure("the stand-in exited: \(log("standin.log"))") }
                return access(ready, F_OK) == 0
            }
            return child
        }

        func stop(_ child: ChildProcess) {
            child.send(SIGTERM)
            _ = child.wait(timeout: 10)
        }

        var calls: Int { log("calls").split(separator: "\n").count }
        func log(_ name: String) -> String { (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? "" }

        deinit {
            for child in children.reversed() where child.poll() == nil {
                child.send(SIGKILL)
                _ = child.wait(timeout: 5)
            }
        }
    }

    @Test(
        "systemd-resolved's FlushCaches is called over D-Bus; no resolved is not a failure, a refusal is",
        .enabled(if: dbusMissing == nil, "\(dbusMissing ?? "")"))
    func resolvedIsFlushedOverDBus() throws {
        let scratch = try Scratch()
        let bus = try PrivateBus(directory: scratch.path)
        let cache = SystemdResolvedCache(busAddress: bus.address)
        #expect(cache.flush() == .notRunning("systemd-resolved is not on the bus"), "nobody owns the name yet")
        let resolved = try bus.standIn()
        #expect(cache.flush() == .flushed)
        #expect(cache.flush() == .flushed)
        #expect(bus.calls == 2)
        bus.stop(resolved)
        try waitUntil("the name to be released", timeout: 10) {
            if case .notRunning = cache.flush() { return true }
            return false
        }
        _ = try bus.standIn(mode: "deny")
        guard case .failed(let why) = cache.flush() else {
            Issue.record("a refused FlushCaches is reported as a failure")
            return
        }
        #expect(why.contains("AccessDenied"), "\(why)")
        #expect(bus.calls == 2)
    }

    @Test func noBusAtAllMeansResolvedCannotRun() {
        let cache = SystemdResolvedCache(busAddress: "unix:path=/nonexistent/simplylock-test-bus")
        #expect(cache.flush() == .notRunning("no D-Bus system bus"))
    }

    @Test func nscdGetsTheInvalidationNscdIDashISends() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/nscd.socket"
        let cache = NscdCache(socketPath: path)
        #expect(cache.flush() == .notRunning("no nscd listening at \(path)"))
        for (answer, expected) in [
            (Int32(0), ResolverCacheOutcome.flushed),
            (Int32(-1), .failed("nscd refused to invalidate its hosts cache (answer -1)")),
        ] {
            let server = try FakeNscd(path: path, answer: answer)
            #expect(cache.flush() == expected)
            #expect(server.received() == NscdCache.request())
        }
        // version 2, INVALIDATE (10), key length 6, "hosts\0": what glibc's nscd -i hosts sends.
        #expect(NscdCache.request() == [2, 0, 0, 0, 10, 0, 0, 0, 6, 0, 0, 0] + Array("hosts".utf8) + [0])
    }
}

/// Accepts one connection on a Unix socket, reads a request and answers `answer`.
final class FakeNscd: @unchecked Sendable {
    private let fd: Int32
    private let done = DispatchSemaphore(value: 0)
    private let request = LockedData()

    init(path: String, answer: Int32) throws {
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { throw TestFailure("cannot listen at \(path)") }
        let server = fd
        let request = self.request
        let finished = done
        Thread {
            let client = accept(server, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = recv(client, &buffer, 18, Int32(MSG_WAITALL))
            request.set(Data(buffer[0..<max(0, n)]))
            var reply = answer
            _ = withUnsafeBytes(of: &reply) { send(client, $0.baseAddress, 4, Int32(MSG_NOSIGNAL)) }
            close(client)
            finished.signal()
        }.start()
    }

    /// What the client sent (waits for the exchange to finish), and closes the socket.
    func received() -> [UInt8] {
        _ = done.wait(timeout: .now() + 5)
        close(fd)
        return Array(request.get())
    }
}
