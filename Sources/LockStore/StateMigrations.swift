import Foundation
import GRDB
import LockCore

/// The state database's schema, one migration per version. Migrations never change once
/// released: databases written by every earlier version must still open.
enum StateMigrations {
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
            // One row per completed focus phase; (run, cycle) is unique so a phase replayed
            // after a crash is recorded once.
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
        migrator.registerMigration("v3") { db in
            // Active sessions get columns of their own instead of a blob in the API's JSON.
            try db.create(table: "activeSession") { t in
                t.primaryKey("id", .text)
                t.column("profile", .text).notNull()
                t.column("origin", .text).notNull()
                t.column("strict", .boolean).notNull()
                t.column("startedAt", .datetime).notNull()
                t.column("endBoot", .integer).notNull()
                t.column("bootID", .text).notNull()
                t.column("checkpointRemaining", .integer).notNull()
                t.column("checkpointWall", .datetime).notNull()
                t.column("pendingOffSince", .datetime)
                t.column("pendingResumedAt", .integer)
                t.column("rules", .blob).notNull()
            }
            for row in try Row.fetchAll(db, sql: "SELECT data FROM session ORDER BY rowid") {
                let session = try LegacySessionBlob.decode(row["data"] as Data)
                // The columns of this version only: `SessionRecord` has gained some since.
                let record = try SessionRecord(session)
                try db.execute(
                    sql: """
                        INSERT INTO activeSession (id, profile, origin, strict, startedAt, endBoot, bootID, checkpointRemaining,
                                                   checkpointWall, pendingOffSince, pendingResumedAt, rules)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        record.id, record.profile, record.origin, record.strict, record.startedAt, record.endBoot,
                        record.bootID, record.checkpointRemaining, record.checkpointWall, record.pendingOffSince,
                        record.pendingResumedAt, record.rules,
                    ])
            }
            try db.drop(table: "session")
        }
        migrator.registerMigration("v4") { db in
            // Blocked attempts, append-only (rows leave only through retention). Times are
            // seconds since 1970 as numbers: a year of them is scanned by range, not parsed.
            try db.create(table: "attempt") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .double).notNull().indexed()
                t.column("kind", .text).notNull()
                t.column("name", .text).notNull()
                t.column("detail", .text).notNull()
                t.column("profile", .text)
                t.column("source", .text).notNull()
                t.column("client", .text).notNull()
                t.column("count", .integer).notNull()
            }
            // The same attempts summed, so that a year of insights reads thousands of rows
            // instead of a million: per quarter hour and kind (every zone's offset is a multiple
            // of one, so local days are exact), and per UTC day and per UTC month with their names
            // (the sites and apps tried most; the window's partial days come from `attempt`).
            try db.create(table: "attemptQuarter", options: [.withoutRowID]) { t in
                t.column("bucket", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("count", .integer).notNull()
                t.primaryKey(["bucket", "kind"])
            }
            for (table, column) in [("attemptDay", "day"), ("attemptMonth", "month")] {
                try db.create(table: table, options: [.withoutRowID]) { t in
                    t.column(column, .integer).notNull()
                    t.column("kind", .text).notNull()
                    t.column("name", .text).notNull()
                    t.column("count", .integer).notNull()
                    t.primaryKey([column, "kind", "name"])
                }
            }
            // Early ends of strict blocks, with the boot clock reading that the weekly
            // allowance is counted on.
            try db.create(table: "emergencyUnlock") { t in
                t.primaryKey("session", .text)
                t.column("profile", .text).notNull()
                t.column("at", .datetime).notNull().indexed()
                t.column("bootNanoseconds", .integer).notNull()
                t.column("bootID", .text).notNull()
            }
            // Focus time reads the sessions that overlap a window: by their end as well as their start.
            try db.create(index: "history_on_endedAt", on: "history", columns: ["endedAt"])
        }
        migrator.registerMigration("v5") { db in
            // Where a session blocks (`local,kids`); rows from before are this machine's.
            try db.alter(table: "activeSession") { t in t.add(column: "target", .text).notNull().defaults(to: BlockTarget.localName) }
        }
        migrator.registerMigration("v6") { db in
            // Whether a block applied to this machine: one aimed only at device groups is no focus
            // time of this machine's user. Rows from before were all this machine's.
            try db.alter(table: "history") { t in t.add(column: "local", .boolean).notNull().defaults(to: true) }
        }
        migrator.registerMigration("v7") { db in
            // Usage: each attributed minute with the meter that counted it (`usage --explain`),
            // and the same seconds summed per quarter hour and item, which a year of reports reads
            // (every zone's offset is a multiple of a quarter hour, so local days are exact).
            try db.create(table: "usageMinute", options: [.withoutRowID]) { t in
                t.column("minute", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("name", .text).notNull()
                t.column("category", .text)
                t.column("meter", .text).notNull()
                t.column("seconds", .integer).notNull()
                t.primaryKey(["minute", "kind", "name"])
            }
            try db.create(table: "usageQuarter", options: [.withoutRowID]) { t in
                t.column("kind", .text).notNull()
                t.column("bucket", .integer).notNull()
                t.column("name", .text).notNull()
                t.column("category", .text)
                t.column("seconds", .integer).notNull()
                t.primaryKey(["kind", "bucket", "name"])
            }
            // Each allowance's ledger, saved at every checkpoint and with the session it starts.
            try db.create(table: "allowanceLedger") { t in
                t.primaryKey("name", .text)
                t.column("ledger", .blob).notNull()
            }
        }
        migrator.registerMigration("sessionFriction") { db in
            // The friction policy a session started with, so that a later `[friction]` change
            // does not change how it can be ended. Rows from before stay null: their policy is
            // the one in force when asked, as before.
            try db.alter(table: "activeSession") { t in
                t.add(column: "frictionDelayNanoseconds", .integer)
                t.add(column: "frictionTyping", .integer)
                t.add(column: "frictionPerWeek", .integer)
            }
        }
        return migrator
    }
}

/// Sessions as versions 1 and 2 stored them: the whole `Session` as JSON with RFC 3339 dates.
/// Spelled out here so that later changes to `Session` cannot break the upgrade.
private struct LegacySessionBlob: Decodable {
    struct Boot: Decodable { var nanoseconds: Int64 }
    var id: String
    var profile: String
    var origin: SessionOrigin
    var strict: Bool
    var rules: BlockRules
    var startedAt: Date
    var endBoot: Boot
    var bootID: String
    var checkpointRemaining: Duration
    var checkpointWall: Date

    static func decode(_ data: Data) throws -> Session {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let blob = try decoder.decode(LegacySessionBlob.self, from: data)
        var session = Session(
            id: blob.id, profile: blob.profile, origin: blob.origin, strict: blob.strict, rules: blob.rules,
            duration: blob.checkpointRemaining,
            now: ClockReading(wall: blob.checkpointWall, boot: .init(nanoseconds: 0), bootID: blob.bootID))
        session.startedAt = blob.startedAt
        session.endBoot = BootTime(nanoseconds: blob.endBoot.nanoseconds)
        return session
    }
}
