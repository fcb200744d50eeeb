import Foundation
import GRDB
import LockCore

/// Active sessions, the history of every session, completed Pomodoro focus phases and the
/// small saved values of other subsystems, in SQLite.
///
/// Every change is one transaction with `synchronous=FULL` in WAL mode, so a `kill -9` at any
/// moment leaves either the state before the change or the state after it. The on-disk format
/// is the store's own (`StateRecords`), independent of the API's JSON.
public final class StateStore: Sendable {
    let database: DatabaseQueue
    /// Why the store could only be opened for reading (a full or read-only state directory),
    /// or nil when changes can be saved.
    public let readOnlyReason: String?

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// When it cannot be written (a full or read-only disk), it is opened read-only instead,
    /// so saved blocks are still restored and enforced, and `readOnlyReason` says why.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "simplylock.state"
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try StateMigrations.migrator.migrate(queue)
            database = queue
            readOnlyReason = nil
        } catch let error as DatabaseError where StateStore.meansCannotWrite(error) {
            let reason = "\(error)"
            guard FileManager.default.fileExists(atPath: path) else { throw error }
            // Nothing can be saved, but what was saved can still be read and enforced.
            var readOnly = Configuration()
            readOnly.label = "simplylock.state.readonly"
            readOnly.readonly = true
            let queue: DatabaseQueue
            do { queue = try DatabaseQueue(path: path, configuration: readOnly) } catch {
                queue = try DatabaseQueue(path: "file:\(path)?immutable=1", configuration: readOnly)
            }
            // A file that no version ever wrote to (a fresh state directory with no room) is not
            // an old database: it was never created, for the reason SQLite gave.
            let applied = (try? queue.read { db in try StateMigrations.migrator.appliedIdentifiers(db) }) ?? []
            guard !applied.isEmpty else { throw StateStoreError.cannotCreate(path: path, reason: reason) }
            guard try queue.read({ db in try StateMigrations.migrator.hasCompletedMigrations(db) }) else {
                throw StateStoreError.readOnlyAndOutdated(reason)
            }
            database = queue
            readOnlyReason = reason
        }
    }

    /// True for the errors of a disk that is full or cannot be written; anything else (a damaged
    /// or foreign file) is not hidden behind a read-only fallback.
    static func meansCannotWrite(_ error: DatabaseError) -> Bool {
        [.SQLITE_FULL, .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_BUSY].contains(error.resultCode)
    }

    /// Opens a private in-memory database, for tests.
    public init() throws {
        database = try DatabaseQueue()
        try StateMigrations.migrator.migrate(database)
        readOnlyReason = nil
    }

    /// The encoder of values the store keeps as JSON. Dates as RFC 3339 and sorted keys, as the
    /// files written by earlier versions have them; owned here so that a change of the API's
    /// wire format never changes what is on disk.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The decoder matching `encoder`.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// A saved value of another subsystem (the Pomodoro run, schedule records, resolved addresses).
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        try database.read { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT value FROM keyValue WHERE key = ?", arguments: [key]) else {
                return nil
            }
            return try StateStore.decoder.decode(T.self, from: data)
        }
    }

    /// Saves (or, for nil, removes) a value of another subsystem.
    public func setValue<T: Encodable>(_ value: T?, forKey key: String) throws {
        try requireWritable()
        try database.write { db in try StateStore.setValue(value, forKey: key, db) }
    }

    /// Refuses a write at once, with the reason, when the database could only be opened for
    /// reading, rather than with SQLite's words for it.
    func requireWritable() throws {
        if let readOnlyReason { throw StateStoreError.readOnly(readOnlyReason) }
    }

    static func setValue<T: Encodable>(_ value: T?, forKey key: String, _ db: Database) throws {
        if let value {
            try db.execute(
                sql: "INSERT OR REPLACE INTO keyValue (key, value) VALUES (?, ?)",
                arguments: [key, try StateStore.encoder.encode(value)])
        } else {
            try db.execute(sql: "DELETE FROM keyValue WHERE key = ?", arguments: [key])
        }
    }
}

/// Why the state database could not be opened at all.
public enum StateStoreError: Error, CustomStringConvertible {
    /// It cannot be written, and its schema is older than this version reads.
    case readOnlyAndOutdated(String)
    /// It could only be opened for reading; nothing can be saved.
    case readOnly(String)
    /// It does not exist yet and cannot be created (a full or read-only state directory).
    case cannotCreate(path: String, reason: String)

    public var description: String {
        switch self {
        case .readOnly(let reason):
            "the state database could only be opened for reading (\(reason)); free space in the state directory and restart simplylockd"
        case .cannotCreate(let path, let reason):
            "the state database \(path) cannot be created (\(reason)); free space in \((path as NSString).deletingLastPathComponent) "
                + "(or make it writable) and start simplylockd again"
        case .readOnlyAndOutdated(let reason):
            "the state database cannot be written (\(reason)) and was saved by an older version that must upgrade it first"
        }
    }
}
