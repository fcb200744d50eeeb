import Foundation
import Glibc
import TestSupport

/// What checking rulesets against the kernel needs: root, nft and unshare.
enum KernelCheck {
    static func which(_ tool: String) -> String? {
        ["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let missing: String? = {
        guard getuid() == 0 else { return "needs root for a private network namespace" }
        for tool in ["unshare", "nft", "ip", "python3"] where which(tool) == nil { return "\(tool) is not installed" }
        guard let probe = try? ProcessRunner.run(which("unshare")!, ["-n", which("nft")!, "list", "ruleset"]), probe.status == 0 else {
            return "nft cannot talk to the kernel in a private network namespace here"
        }
        return nil
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    /// Runs `arguments` in a private network namespace with `script` in a file as `{}`.
    static func run(script: String, _ arguments: [String]) throws -> CommandResult {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ruleset-\(UUID().uuidString).nft")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ProcessRunner.run(which("unshare")!, ["-n"] + arguments.map { $0 == "{}" ? file.path : $0 })
    }
}
