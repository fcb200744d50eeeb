import Foundation
import LockCore

/// A temporary directory with the shipped data and empty state, removed at the end.
public final class Scratch: @unchecked Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "simplylock-unit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/etc", withIntermediateDirectories: true)
    }

    public var paths: Paths {
        Paths(
            root: path,
            dataDirectory: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../config").standardized.path)
    }

    public func write(_ relative: String, _ text: String) throws {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    }

    public func read(_ relative: String) -> String? { try? String(contentsOfFile: path + "/" + relative, encoding: .utf8) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
