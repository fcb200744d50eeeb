import Foundation
import GRDB
import LockCore
import LockProtocol

/// Active sessions and the history of every session, in SQLite.
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


    private func upsert(_ session: Session, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO session (id, profile, origin, data) VALUES (?, ?, ?, ?)",
                       arguments: [session.id, session.profile, session.origin.rawValue, try StateStore.encoder.encode(session)])
    }
}
