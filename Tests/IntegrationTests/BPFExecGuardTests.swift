import Foundation
import Glibc
import TestSupport
import Testing

/// The BPF LSM exec guard end to end: the real daemon with `--enforcers hosts,bpf`, driven by
/// the real lockctl, in a private mount namespace (`Tests/Scripts/bpf-daemon.sh`). Where the
/// kernel refuses BPF LSM programs, the test checks that status and doctor say so instead.
@Suite struct BPFExecGuardTests {
    /// The compiled guard next to the binaries (`make generated` writes it there).
    static let object = Binaries.directory + "/exec-guard.bpf.o"

    /// Why neither test can run here, or nil.
    static let unavailableReason: String? = {
        if getuid() != 0 { return "needs root (mount namespaces, bpf filesystems, BPF programs)" }
        return TestTools.missing {
            for tool in ["/usr/bin/unshare", "/usr/bin/timeout", "/usr/bin/setpriv", "/usr/bin/python3", "/usr/bin/gcc"]
            where access(tool, X_OK) != 0 {
                return "\(tool) is missing"
            }
            if access(object, R_OK) != 0 {
                return "\(object) is missing: run make generated CONFIGURATION=debug BUILDDIR=… (scripts/test.sh does)"
            }
            return nil
        }
    }()

    /// Why the kernel does not let the guard run (bpftool's probe of the program type), or nil
    /// when it does. The daemon's own reason is checked by the test through doctor.
    static let kernelRefusal: String? = {
        guard unavailableReason == nil, let bpftool = TestTools.which("bpftool") else { return nil }
        guard let probe = try? ProcessRunner.run(bpftool, ["feature", "probe", "kernel"], timeout: 60) else { return nil }
        return probe.stdout.contains("program_type lsm is NOT available")
            ? "the kernel does not allow BPF LSM programs (bpftool feature probe)" : nil
    }()

    /// Without bpftool neither case can be told apart here (on CI: run, and fail if refused).
    static let bpftoolMissing: String? = TestTools.missing { TestTools.which("bpftool") == nil ? "bpftool is missing" : nil }

    static func run(mode: String) throws -> (lines: [Substring], report: String) {
        let root = try TestRoot()
        let result = try ProcessRunner.run(
            "/usr/bin/unshare",
            ["-m", TestTools.repository + "/Tests/Scripts/bpf-daemon.sh", root.path, Binaries.directory, Binaries.dataDirectory, mode],
            timeout: 240)
        let log = (try? String(contentsOfFile: root.path + "/daemon.log", encoding: .utf8)) ?? ""
        return (result.stdout.split(separator: "\n"), "\(result.stdout)\n\(result.stderr)\ndaemon log (end):\n\(log.suffix(4000))")
    }

    @Test(
        "a blocked program is refused as nobody: exec, a copied loader, memfd + fexecve, after kill -9 (pinned) and a restart; others, bash and python keep working; --release lifts it",
        .enabled(
            if: unavailableReason == nil && bpftoolMissing == nil && kernelRefusal == nil,
            Comment(rawValue: unavailableReason ?? bpftoolMissing ?? kernelRefusal ?? "")))
    func refusesEveryWayIn() throws {
        let (lines, report) = try Self.run(mode: "enforce")
        #expect(lines.filter { $0.hasPrefix("not ok") }.isEmpty, "\(report)")
        #expect(lines.filter { $0.hasPrefix("ok") }.count == 16, "\(report)")
    }

    @Test(
        "where the kernel refuses the guard, a block of apps is refused as a whole, status and doctor say why, and nothing is pinned",
        .enabled(if: unavailableReason == nil && kernelRefusal != nil, "the kernel allows BPF LSM programs here"))
    func saysWhenRefused() throws {
        let (lines, report) = try Self.run(mode: "refused")
        #expect(lines.filter { $0.hasPrefix("not ok") }.isEmpty, "\(report)")
        #expect(lines.filter { $0.hasPrefix("ok") }.count == 5, "\(report)")
    }
}
