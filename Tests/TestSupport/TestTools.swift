import Foundation
import Glibc

/// The outside tools the suite checks the project with, and whether this run must have them.
public enum TestTools {
    /// The repository's root.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardized.path

    /// True in CI (`.ci/run` sets `CI`): a missing tool is then a failure, not a skip.
    public static let required = ProcessInfo.processInfo.environment["CI"] != nil

    /// The Python of the suite's virtual environment (made by scripts/setup.sh with the pinned
    /// PyPI tools: schemathesis, jsonschema, openapi-spec-validator, PyYAML, idna), if it exists.
    public static let python: String? = {
        let path = repository + "/.build/test-venv/bin/python3"
        return access(path, X_OK) == 0 ? path : nil
    }()

    /// Whether a program is on the PATH.
    public static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Why a test cannot run here (nil when it can), for `.enabled(if:)`; on CI always nil, so the
    /// test runs and fails on what is missing instead of being skipped.
    public static func missing(_ check: () -> String?) -> String? {
        required ? nil : check()
    }

    /// Why a test cannot run on this kernel or in this sandbox (nil when it can), for
    /// `.enabled(if:)`: a kernel option or a capability that no install step can give is a skip
    /// with its reason in CI too, unlike a missing tool.
    public static func unsupported(_ check: () -> String?) -> String? {
        check()
    }
}
