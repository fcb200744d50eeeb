import Foundation
import Glibc
import LockCore
import LockPlatform

/// The allowances, one file each in `allowances.d`.
///
/// A file that fails to load is reported (file, line, field) and left out, or, on a reload,
/// its last good version is kept, so one bad file never disables the others.
public struct AllowanceStore: Sendable {
    /// Why a change to the allowances was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// No such allowance.
        case notFound(String)
        /// An allowance (or a file) with that name exists.
        case exists(String)
        /// The file could not be written or removed.
        case io(String)
    }

    /// The directory of allowance files.
    public let directory: String
    /// Allowances by name.
    public private(set) var allowances: [String: Allowance] = [:]
    /// Problems found by the last load.
    public private(set) var problems: [FileProblem] = []

    /// Creates an empty store; call `reload(profiles:)` to read the files.
    public init(directory: String) { self.directory = directory }

    /// Reads every allowance file again. Returns the problems found.
    @discardableResult
    public mutating func reload(profiles: Set<String>?, targets: TargetPolicy? = nil) -> [FileProblem] {
        var found: [FileProblem] = []
        var loaded: [String: Allowance] = [:]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted()
        for file in names {
            do {
                let allowance = try AllowanceFile.load(directory + "/" + file, profiles: profiles, targets: targets)
                loaded[allowance.name] = allowance
            } catch {
                found.append(error)
                let name = file.replacingSuffix(".toml")
                if let previous = allowances[name] { loaded[name] = previous }
            }
        }
        allowances = loaded
        problems = found
        return found
    }

    /// Allowances sorted by name.
    public var sorted: [Allowance] { allowances.values.sorted { $0.name < $1.name } }

    /// Adds an allowance and writes its file; an existing allowance or file of that name is kept.
    public mutating func create(_ allowance: Allowance) throws(Failure) {
        guard allowances[allowance.name] == nil, !FileManager.default.fileExists(atPath: file(for: allowance.name)) else {
            throw .exists(allowance.name)
        }
        do {
            try AtomicFile.makeDirectories(directory)
            try AtomicFile.write(Array(AllowanceFile.render(allowance).utf8), to: file(for: allowance.name))
        } catch { throw .io(error.description) }
        allowances[allowance.name] = allowance
    }

    /// Deletes an allowance and its file.
    public mutating func delete(_ name: String) throws(Failure) {
        guard allowances[name] != nil else { throw .notFound(name) }
        let path = file(for: name)
        if unlink(path) != 0, errno != ENOENT { throw .io(SystemError("unlink", path).description) }
        AtomicFile.syncDirectory(directory)
        allowances[name] = nil
    }

    /// The file of an allowance.
    public func file(for name: String) -> String { directory + "/\(name).toml" }
}
