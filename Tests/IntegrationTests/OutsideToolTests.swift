import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon checked by tools from outside the project: schemathesis against the OpenAPI
/// document, hostile clients with assertions, and a bounded raw-HTTP fuzz.
@Suite("Outside tools against the real daemon", .serialized)
struct OutsideToolTests {
    static let scripts = TestTools.repository + "/Tests/Scripts"

    static let schemathesisMissing = TestTools.missing {
        if TestTools.python == nil { return "the suite's Python tools are missing (run scripts/setup.sh)" }
        return TestTools.which("socat") == nil ? "socat is not installed (apt-get install socat)" : nil
    }
    static let notRoot = TestTools.missing { getuid() == 0 ? nil : "needs root to act as another user" }

    @Test(
        "schemathesis: every check, fixed seed, bounded examples, 0 failures",
        .enabled(if: schemathesisMissing == nil, "\(schemathesisMissing ?? "")"))
    func schemathesis() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let venv = TestTools.repository + "/.build/test-venv"
        let result = try ProcessRunner.run(
            Self.scripts + "/schemathesis.sh",
            [root.socketPath, TestTools.repository + "/docs/openapi.yaml", venv, "25"], timeout: 900)
        let summary = result.stdout.split(separator: "\n").suffix(70).joined(separator: "\n")
        #expect(result.status == 0, "\(summary)\n\(result.stderr.suffix(2000))")
        #expect(result.stdout.contains("No issues found") || !result.stdout.contains("Failures:"), "\(summary)")
        #expect(try daemon.lockctl("status").status == 0, "the daemon does not answer after schemathesis")
    }

    @Test(
        "hostile clients: empty query keys, idle and slow connections, connection caps, big bodies, HTTP semantics",
        .enabled(if: notRoot == nil, "\(notRoot ?? "")"))
    func abuse() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "30m").status == 0)
        let result = try ProcessRunner.run(
            "/usr/bin/env",
            [
                "python3", Self.scripts + "/http_abuse.py", root.socketPath, "\(daemon.pid)",
                root.hostsPath,
            ], timeout: 300)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0 && failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(result)")
        #expect(result.stdout.contains("# 0 failed"), "\(result.stdout)")
    }

    @Test(
        "a bounded raw-HTTP fuzz leaves the daemon answering within 1 s, its memory and descriptors back",
        .enabled(if: notRoot == nil, "\(notRoot ?? "")"))
    func fuzz() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let result = try ProcessRunner.run(
            "/usr/bin/env", ["python3", Self.scripts + "/http_fuzz.py", root.socketPath, "\(daemon.pid)", "4000"],
            timeout: 600)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("ok fuzz"), "\(result.stdout)")
        #expect(try daemon.lockctl("status").status == 0)
    }
}
