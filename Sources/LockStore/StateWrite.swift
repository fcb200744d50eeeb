import Foundation
import GRDB
import LockCore

/// A record of a session owner (a schedule's record, the Pomodoro run and the focus phases it
/// completed), saved in the same transaction as the session change it goes with: a crash can
/// never keep the one without the other, and nothing has to be taken back by hand.
public enum StateWrite: Sendable, Equatable {
    /// A value under a key (nil data removes it).
    case value(key: String, data: Data?)
    /// Completed focus phases (recorded once, whatever the replays).
    case focus([FocusRecord])
    /// Allowances' ledgers (nil removes one).
    case allowanceLedgers([String: AllowanceLedger?])

    /// `value` saved under `key` (nil removes it), encoded as the store keeps its values.
    public static func value<T: Encodable>(_ value: T?, forKey key: String) throws -> StateWrite {
        .value(key: key, data: try value.map { try StateStore.encoder.encode($0) })
    }
}

extension StateStore {
    /// Refuses, with the reason, when nothing can be saved (a read-only state directory), so
    /// that a change someone asked for is refused before any enforcer moves.
    public func checkWritable() throws { try requireWritable() }

    /// Saves owners' records alone, in one transaction (when their sessions could not change).
    public func save(_ writes: [StateWrite]) throws {
        guard !writes.isEmpty else { return }
        try requireWritable()
        try database.write { db in try StateStore.apply(writes, db) }
    }

    static func apply(_ writes: [StateWrite], _ db: Database) throws {
        for write in writes {
            switch write {
            case .value(let key, let data):
                if let data {
                    try db.execute(sql: "INSERT OR REPLACE INTO keyValue (key, value) VALUES (?, ?)", arguments: [key, data])
                } else {
                    try db.execute(sql: "DELETE FROM keyValue WHERE key = ?", arguments: [key])
                }
            case .focus(let records):
                for record in records {
                    try db.execute(
                        sql: """
                            INSERT OR IGNORE INTO pomodoroFocus (run, profile, cycle, cycles, startedAt, endedAt, focusedSeconds)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            record.run, record.profile, record.cycle, record.cycles, record.startedAt, record.endedAt,
                            record.focused.seconds,
                        ])
                }
            case .allowanceLedgers(let ledgers):
                try StateStore.saveAllowanceLedgers(ledgers, db)
            }
        }
    }
}
