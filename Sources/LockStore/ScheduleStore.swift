import Foundation
import Glibc
import LockCore
import LockPlatform

/// The schedules, one file each in `schedules.d`.
///
/// A file that fails to load is reported (file, line, field) and left out, or, on a reload,
/// its last good version is kept, so one bad file never disables the others.
public struct ScheduleStore: Sendable {
    /// Why a change to the schedules was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// No such schedule.
        case notFound(String)
        /// A schedule (or a file) with that name exists.
        case exists(String)
        /// The file could not be written or removed.
        case io(String)
    }

    /// The directory of schedule files.
    public let directory: String
    /// Schedules by name.
    public private(set) var schedules: [String: Schedule] = [:]
    /// Problems found by the last load.
    public private(set) var problems: [FileProblem] = []

    /// Creates an empty store; call `reload(profiles:)` to read the files.
    public init(directory: String) { self.directory = directory }

    /// Reads every schedule file again; with `profiles`, a schedule must name one of them, and
    /// with `targets` its target must be one the daemon can enforce. Returns the problems found.
    @discardableResult
    public mutating func reload(profiles: Set<String>?, targets: TargetPolicy? = nil) -> [FileProblem] {
        var found: [FileProblem] = []
        var loaded: [String: Schedule] = [:]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted()
        for file in names {
            do {
                let schedule = try ScheduleFile.load(directory + "/" + file, profiles: profiles, targets: targets)
                loaded[schedule.name] = schedule
            } catch {
                found.append(error)
                let name = file.replacingSuffix(".toml")
                if let previous = schedules[name] { loaded[name] = previous }
            }
        }
        schedules = loaded
        problems = found
        return found
    }

    /// Schedules sorted by name.
    public var sorted: [Schedule] { schedules.values.sorted { $0.name < $1.name } }

    /// Adds a schedule and writes its file; an existing schedule or file of that name is kept.
    public mutating func create(_ schedule: Schedule) throws(Failure) {
        guard schedules[schedule.name] == nil, !FileManager.default.fileExists(atPath: file(for: schedule.name)) else {
            throw .exists(schedule.name)
        }
        try write(schedule)
        schedules[schedule.name] = schedule
    }

    /// Enables or disables a schedule and rewrites its file.
    public mutating func setEnabled(_ name: String, _ enabled: Bool) throws(Failure) -> Schedule {
        guard var schedule = schedules[name] else { throw .notFound(name) }
        guard schedule.enabled != enabled else { return schedule }
        schedule.enabled = enabled
        try write(schedule)
        schedules[name] = schedule
        return schedule
    }

    /// Replaces a schedule with a changed version of it and rewrites its file.
    public mutating func replace(_ schedule: Schedule) throws(Failure) {
        guard schedules[schedule.name] != nil else { throw .notFound(schedule.name) }
        try write(schedule)
        schedules[schedule.name] = schedule
    }

    /// Deletes a schedule and its file.
    public mutating func delete(_ name: String) throws(Failure) {
        guard schedules[name] != nil else { throw .notFound(name) }
        let path = file(for: name)
        if unlink(path) != 0, errno != ENOENT { throw .io(SystemError("unlink", path).description) }
        AtomicFile.syncDirectory(directory)
        schedules[name] = nil
    }

    /// The file of a schedule.
    public func file(for name: String) -> String { directory + "/\(name).toml" }

    private func write(_ schedule: Schedule) throws(Failure) {
        do {
            try AtomicFile.makeDirectories(directory)
            try AtomicFile.write(Array(ScheduleFile.render(schedule).utf8), to: file(for: schedule.name))
        } catch { throw .io(error.description) }
    }
}
