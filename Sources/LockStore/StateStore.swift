import Foundation
import GRDB
import LockCore
import LockProtocol

/// Active sessions, the history of every session, and completed Pomodoro focus phases, in SQLite.
///
/// Every change is one transaction with `synchronous=FULL` in WAL mode, so a `kill -9` at any
/// moment leaves either the state before the change or the state after it.
public final class StateStore: Sendable {
    private let database: DatabaseQueue

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "simplylock.state"
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try StateStore.migrator.migrate(database)
    }

    /// Opens a private in-memory database, for tests.
    public init() throws {
        database = try DatabaseQueue()
        try StateStore.migrator.migrate(database)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "session") { t in
                t.primaryKey("id", .text)
                t.column("profile", .text).notNull()
                t.column("origin", .text).notNull()
                t.column("data", .blob).notNull()
            }
            try db.create(table: "history") { t in
                t.primaryKey("id", .text)
                t.column("profile", .text).notNull().indexed()
                t.column("origin", .text).notNull()
                t.column("strict", .boolean).notNull()
                t.column("startedAt", .datetime).notNull().indexed()
                t.column("plannedEnd", .datetime).notNull()
                t.column("endedAt", .datetime)
                t.column("endReason", .text)
                t.column("blockedNames", .integer).notNull()
            }
            try db.create(table: "keyValue") { t in
                t.primaryKey("key", .text)
                t.column("value", .blob).notNull()
            }
        }
        migrator.registerMigration("v2") { db in
            // One row per completed focus phase, for insights (pomodoros, focus minutes).
            // (run, cycle) is unique so a phase replayed after a crash is recorded once.
            try db.create(table: "pomodoroFocus") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("run", .text).notNull()
                t.column("profile", .text).notNull().indexed()
                t.column("cycle", .integer).notNull()
                t.column("cycles", .integer)
                t.column("startedAt", .datetime).notNull()
                t.column("endedAt", .datetime).notNull().indexed()
                t.column("focusedSeconds", .double).notNull()
                t.uniqueKey(["run", "cycle"])
            }
        }
        return migrator
    }

    private static let encoder = API.makeEncoder()
    private static let decoder = API.makeDecoder()

    /// The sessions that were active when last saved.
    public func activeSessions() throws -> [Session] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT data FROM session ORDER BY rowid").map { row in
                try StateStore.decoder.decode(Session.self, from: row["data"] as Data)
            }
        }
    }

    /// Records a new session: active, and its history entry.
    public func recordStart(_ session: Session, at now: ClockReading) throws {
        try database.write { db in
            try upsert(session, db)
            try db.execute(sql: """
                INSERT OR REPLACE INTO history (id, profile, origin, strict, startedAt, plannedEnd, endedAt, endReason, blockedNames)
                VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?)
                """, arguments: [session.id, session.profile, session.origin.rawValue, session.strict, session.startedAt,
                                 session.endsAt(at: now), session.rules.exactNames.count])
        }
    }

    /// Saves changed sessions (checkpoints, extensions, new rules) and their planned ends.
    public func save(_ sessions: [Session], at now: ClockReading) throws {
        guard !sessions.isEmpty else { return }
        try database.write { db in
            for session in sessions {
                try upsert(session, db)
                try db.execute(sql: "UPDATE history SET plannedEnd = ?, strict = ?, blockedNames = ? WHERE id = ?",
                               arguments: [session.endsAt(at: now), session.strict, session.rules.exactNames.count, session.id])
            }
        }
    }

    /// Records the end of sessions: no longer active, and how they ended.
    public func recordEnd(_ sessions: [Session], at date: Date, reason: EndReason) throws {
        guard !sessions.isEmpty else { return }
        try database.write { db in
            for session in sessions {
                try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [session.id])
                try db.execute(sql: "UPDATE history SET endedAt = ?, endReason = ? WHERE id = ?",
                               arguments: [date, reason.rawValue, session.id])
            }
        }
    }

    /// Takes back a start that could not be enforced, as if it never happened.
    public func forget(_ session: Session) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [session.id])
            try db.execute(sql: "DELETE FROM history WHERE id = ?", arguments: [session.id])
        }
    }

    /// The most recent history entries, newest first.
    public func history(limit: Int) throws -> [HistoryEntry] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM history ORDER BY startedAt DESC, rowid DESC LIMIT ?", arguments: [limit]).map { row in
                HistoryEntry(session: row["id"], profile: row["profile"], origin: row["origin"], strict: row["strict"],
                             startedAt: row["startedAt"], plannedEnd: row["plannedEnd"], endedAt: row["endedAt"],
                             endReason: row["endReason"])
            }
        }
    }

    /// A stored value of another subsystem (Pomodoro state, schedule suppressions).
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        try database.read { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT value FROM keyValue WHERE key = ?", arguments: [key]) else {
                return nil
            }
            return try StateStore.decoder.decode(T.self, from: data)
        }
    }

    /// Stores (or, for nil, removes) a value of another subsystem.
    public func setValue<T: Encodable>(_ value: T?, forKey key: String) throws {
        try database.write { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO keyValue (key, value) VALUES (?, ?)",
                               arguments: [key, try StateStore.encoder.encode(value)])
            } else {
                try db.execute(sql: "DELETE FROM keyValue WHERE key = ?", arguments: [key])
            }
        }
    }

    /// Stores the Pomodoro timer's state (nil removes it) and records the focus phases it
    /// completed, in one transaction: a crash can neither lose a completed phase nor, since
    /// the state saved with it no longer replays that phase, record it twice.
    public func savePomodoro<T: Encodable>(_ state: T?, forKey key: String, completed: [PomodoroFocusEntry]) throws {
        try database.write { db in
            if let state {
                try db.execute(sql: "INSERT OR REPLACE INTO keyValue (key, value) VALUES (?, ?)",
                               arguments: [key, try StateStore.encoder.encode(state)])
            } else {
                try db.execute(sql: "DELETE FROM keyValue WHERE key = ?", arguments: [key])
            }
            for entry in completed {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO pomodoroFocus (run, profile, cycle, cycles, startedAt, endedAt, focusedSeconds)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [entry.run, entry.profile, entry.cycle, entry.cycles, entry.startedAt, entry.endedAt,
                                     entry.focusedSeconds])
            }
        }
    }

    /// The most recent completed focus phases, newest first, with the count and focus time of
    /// all of them.
    public func pomodoroHistory(limit: Int) throws -> PomodoroHistoryResponse {
        try database.read { db in
            let entries = try Row.fetchAll(db, sql: "SELECT * FROM pomodoroFocus ORDER BY endedAt DESC, id DESC LIMIT ?",
                                           arguments: [limit]).map { row in
                PomodoroFocusEntry(run: row["run"], profile: row["profile"], cycle: row["cycle"], cycles: row["cycles"],
                                   startedAt: row["startedAt"], endedAt: row["endedAt"], focusedSeconds: row["focusedSeconds"])
            }
            let totals = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(focusedSeconds), 0) AS s FROM pomodoroFocus")
            return PomodoroHistoryResponse(entries: entries, pomodoros: totals?["n"] ?? 0, focusedSeconds: totals?["s"] ?? 0)
        }
    }

    private func upsert(_ session: Session, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO session (id, profile, origin, data) VALUES (?, ?, ?, ?)",
                       arguments: [session.id, session.profile, session.origin.rawValue, try StateStore.encoder.encode(session)])
    }
}
