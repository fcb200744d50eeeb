import Foundation
import LockCore

/// Where the BPF LSM exec guard's compiled object and pins are.
enum BPFObject {
    static let fileName = "exec-guard.bpf.o"

    /// The object next to the daemon (a development build: the Makefile writes it into the build
    /// directory), else in the data directory (installed); nil when neither has it.
    static func locate(dataDirectory: String) -> String? {
        let binDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        return [binDirectory + "/" + fileName, dataDirectory + "/" + fileName].first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The pin directory, under the root: a test's scratch root pins in a bpf filesystem of its own.
    static func pins(_ paths: Paths) -> String { Paths.join(paths.root, "sys/fs/bpf/simplylock") }
}
