import Foundation
import GRDB
import LockCore

extension StateStore {
    /// Saves the Pomodoro timer's state (nil removes it) and records the focus phases it
    /// completed, in one transaction: a crash can neither lose a completed phase nor, since
    /// the state saved with it no longer replays that phase, record it twice.
    public func savePomodoro<T: Encodable>(_ state: T?, forKey key: String, completed: [FocusRecord]) throws {
        try save([try .value(state, forKey: key), .focus(completed)])
    }

    /// The most recent completed focus phases, newest first, with the count and focus time of
    /// all of them.
    public func focusHistory(limit: Int) throws -> FocusHistory {
        try database.read { db in
            let records = try FocusRow.fetchAll(
                db, sql: "SELECT * FROM pomodoroFocus ORDER BY endedAt DESC, id DESC LIMIT ?",
                arguments: [limit]
            ).map(\.record)
            let totals = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(focusedSeconds), 0) AS s FROM pomodoroFocus")
            let seconds: Double = totals?["s"] ?? 0
            return FocusHistory(records: records, count: totals?["n"] ?? 0, focused: Duration.checkedSeconds(seconds) ?? .zero)
        }
    }
}

/// A row of `pomodoroFocus`.
struct FocusRow: Codable, FetchableRecord {
    var run: String
    var profile: String
    var cycle: Int
    var cycles: Int?
    var startedAt: Date
    var endedAt: Date
    var focusedSeconds: Double

    var record: FocusRecord {
        FocusRecord(
            run: run, profile: profile, cycle: cycle, cycles: cycles, startedAt: startedAt, endedAt: endedAt,
            focused: Duration.checkedSeconds(focusedSeconds) ?? .zero)
    }
}
