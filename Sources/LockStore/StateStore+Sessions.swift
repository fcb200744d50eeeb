import Foundation
import GRDB
import LockCore

extension StateStore {
    /// The sessions that were active when last saved, in the order they started.
    public func activeSessions() throws -> [Session] {
        try database.read { db in
            try SessionRecord.fetchAll(db, sql: "SELECT * FROM activeSession ORDER BY rowid").map { try $0.session() }
        }
    }

    /// Saves a change to the active sessions and their history, with the records of the owners
    /// that made it (`writes`), in one transaction.
    public func commit(_ change: SessionChange, writes: [StateWrite] = [], at now: ClockReading) throws {
        guard !change.isEmpty || !writes.isEmpty else { return }
        try requireWritable()
        try database.write { db in
            try StateStore.apply(writes, db)
            for session in change.started {
                try SessionRecord(session).insert(db, onConflict: .replace)
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO history (id, profile, origin, strict, startedAt, plannedEnd, endedAt, endReason, blockedNames,
                                                        local)
                        VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?)
                        """,
                    arguments: [
                        session.id, session.profile, session.origin.rawValue, session.strict, session.startedAt,
                        session.endsAt(at: now), session.rules.exactNameCount, session.target.includesLocal,
                    ])
            }
            for update in change.updated {
                try save(update.new, rulesChanged: update.old.rules != update.new.rules, at: now, db)
            }
            for ending in change.ended {
                try db.execute(sql: "DELETE FROM activeSession WHERE id = ?", arguments: [ending.session.id])
                try db.execute(
                    sql: "UPDATE history SET endedAt = ?, endReason = ? WHERE id = ?",
                    arguments: [ending.at, ending.reason.rawValue, ending.session.id])
                if ending.reason == .unlocked {
                    // In the same transaction as the end: an early end is never lost from the
                    // weekly allowance, nor counted for an end that did not happen.
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO emergencyUnlock (session, profile, at, bootNanoseconds, bootID) VALUES (?, ?, ?, ?, ?)
                            """, arguments: [ending.session.id, ending.session.profile, ending.at, now.boot.nanoseconds, now.bootID])
                }
            }
            // The cached INSERT statement keeps its last bound rules, and SQLite a copy of them:
            // megabytes after a 100 000-name start, for as long as the block lasts.
            db.releaseMemory()
        }
    }

    /// Saves sessions whose checkpoint changed and nothing else.
    public func checkpoint(_ sessions: [Session], at now: ClockReading) throws {
        guard !sessions.isEmpty else { return }
        try requireWritable()
        try database.write { db in
            for session in sessions { try save(session, rulesChanged: false, at: now, db) }
        }
    }

    /// The most recent history entries, newest first.
    public func history(limit: Int) throws -> [HistoryRecord] {
        try database.read { db in
            try HistoryRow.fetchAll(
                db, sql: "SELECT * FROM history ORDER BY startedAt DESC, rowid DESC LIMIT ?",
                arguments: [limit]
            ).map(\.record)
        }
    }

    /// Writes a session that is already saved. Its rules (which may hold 100 000 names) are
    /// written only when they changed; checkpoints and extensions write its times alone.
    private func save(_ session: Session, rulesChanged: Bool, at now: ClockReading, _ db: Database) throws {
        if rulesChanged {
            try SessionRecord(session).insert(db, onConflict: .replace)
        } else {
            try db.execute(
                sql: """
                    UPDATE activeSession SET strict = ?, endBoot = ?, bootID = ?, checkpointRemaining = ?, checkpointWall = ?,
                        pendingOffSince = ?, pendingResumedAt = ? WHERE id = ?
                    """,
                arguments: [
                    session.strict, session.endBoot.nanoseconds, session.bootID, session.checkpointRemaining.nanosecondsClamped,
                    session.checkpointWall, session.pendingOffTime?.since, session.pendingOffTime?.resumedAt.nanoseconds,
                    session.id,
                ])
        }
        try db.execute(
            sql: "UPDATE history SET plannedEnd = ?, strict = ?, blockedNames = ? WHERE id = ?",
            arguments: [session.endsAt(at: now), session.strict, session.rules.exactNameCount, session.id])
    }
}

/// A row of `history`.
struct HistoryRow: Codable, FetchableRecord {
    var id: String
    var profile: String
    var origin: String
    var strict: Bool
    var startedAt: Date
    var plannedEnd: Date
    var endedAt: Date?
    var endReason: String?

    var record: HistoryRecord {
        HistoryRecord(
            session: id, profile: profile, origin: origin, strict: strict, startedAt: startedAt, plannedEnd: plannedEnd,
            endedAt: endedAt, endReason: endReason.flatMap(EndReason.init(rawValue:)))
    }
}
