import Foundation
import GRDB
import LockCore

extension StateStore {
    /// Saves attributed minutes and adds them to the quarter-hour sums, in one transaction. A
    /// minute saved twice (a replay after a crash) replaces the first and is summed once.
    public func recordUsage(_ minutes: [UsageMinute]) throws {
        guard !minutes.isEmpty else { return }
        try requireWritable()
        try database.write { db in
            let previous = try db.cachedStatement(sql: "SELECT seconds FROM usageMinute WHERE minute = ? AND kind = ? AND name = ?")
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO usageMinute (minute, kind, name, category, meter, seconds) VALUES (?, ?, ?, ?, ?, ?)")
            let quarter = try db.cachedStatement(
                sql: """
                    INSERT INTO usageQuarter (kind, bucket, name, category, seconds) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (kind, bucket, name) DO UPDATE SET seconds = seconds + excluded.seconds
                    """)
            for minute in minutes {
                let kind = minute.item.kind.rawValue
                let before = try Int.fetchOne(previous, arguments: [minute.minute, kind, minute.item.name]) ?? 0
                try insert.execute(arguments: [
                    minute.minute, kind, minute.item.name, minute.item.category, minute.meter.rawValue, minute.seconds,
                ])
                try quarter.execute(arguments: [
                    kind, floorDivide(minute.minute, 15), minute.item.name, minute.item.category, minute.seconds - before,
                ])
            }
        }
    }

    /// The usage in `window` counted by `grouping`: the whole quarter hours inside it summed by
    /// SQLite per local day of `zone` and item (a year is a few thousand rows, not tens of
    /// thousands), single minutes at its edges.
    public func usageAmounts(in window: DateInterval, by grouping: UsageGrouping, zone: TimeZone) throws -> [UsageAmount] {
        let kind = Self.kind(of: grouping)
        let first = UsageMinute.index(of: window.start)
        let last = UsageMinute.index(endingAt: window.end)  // exclusive; the minute in progress counts
        // Whole quarters inside the window come from the sums; the edges from the minutes.
        let firstQuarter = floorDivide(first + 14, 15)
        let lastQuarter = max(firstQuarter, floorDivide(last, 15))
        // Each local day's quarters (every zone's offset today is a multiple of a quarter hour).
        var bounds: [(Int64, Int64)] = []
        if lastQuarter > firstQuarter {
            let whole = DateInterval(
                start: Date(timeIntervalSince1970: Double(firstQuarter) * 900), end: Date(timeIntervalSince1970: Double(lastQuarter) * 900))
            for day in LocalDay.days(covering: whole, in: zone) {
                let low = max(firstQuarter, Int64((day.start.timeIntervalSince1970 / 900).rounded(.down)))
                let high = min(lastQuarter, Int64((day.end.timeIntervalSince1970 / 900).rounded(.up)))
                if high > low { bounds.append((low, high)) }
            }
        }
        return try database.read { db in
            var result: [UsageAmount] = []
            // A few hundred days at most: well within SQLite's limit of bound values.
            for chunk in stride(from: 0, to: bounds.count, by: 400) {
                let days = bounds[chunk..<min(bounds.count, chunk + 400)]
                let values = Array(repeating: "(?, ?)", count: days.count).joined(separator: ", ")
                var arguments: [(any DatabaseValueConvertible)?] = days.flatMap { [$0.0, $0.1] }
                arguments.append(kind.rawValue)
                let sums = try Row.fetchCursor(
                    db,
                    sql: """
                        WITH day(low, high) AS (VALUES \(values))
                        SELECT day.low, q.name, q.category, SUM(q.seconds) FROM day
                        JOIN usageQuarter q ON q.kind = ? AND q.bucket >= day.low AND q.bucket < day.high
                        GROUP BY day.low, q.name, q.category
                        """,
                    arguments: StatementArguments(arguments))
                while let row = try sums.next() {
                    let bucket: Int64 = row[0]
                    result.append(UsageAmount(minute: bucket * 15, item: UsageItem(kind, row[1], category: row[2]), seconds: row[3]))
                }
            }
            let edges = try Row.fetchCursor(
                db,
                sql: """
                    SELECT minute, name, category, seconds FROM usageMinute
                    WHERE kind = ? AND ((minute >= ? AND minute < ?) OR (minute >= ? AND minute < ?))
                    """,
                arguments: [kind.rawValue, first, min(last, firstQuarter * 15), max(first, lastQuarter * 15), last])
            while let row = try edges.next() {
                result.append(UsageAmount(minute: row[0], item: UsageItem(kind, row[1], category: row[2]), seconds: row[3]))
            }
            return result
        }
    }

    /// Seconds per name in `window`, by `grouping`, most first.
    public func usageTotals(in window: DateInterval, by grouping: UsageGrouping, zone: TimeZone = TimeZone(identifier: "UTC")!) throws -> [(
        name: String, seconds: Int
    )] {
        var totals: [String: Int] = [:]
        for minute in try usageAmounts(in: window, by: grouping, zone: zone) {
            guard let key = grouping.key(of: minute.item) else { continue }
            totals[key, default: 0] += minute.seconds
        }
        return totals.map { ($0.key, $0.value) }.sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.name < $1.name }
    }

    /// The attributed minutes of `window` with the meter that counted each, oldest first
    /// (`lockctl usage --explain`).
    public func explainedMinutes(in window: DateInterval, limit: Int = 10_000) throws -> [UsageMinute] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT minute, kind, name, category, meter, seconds FROM usageMinute WHERE minute >= ? AND minute < ? ORDER BY minute, kind, name LIMIT ?",
                arguments: [UsageMinute.index(of: window.start), UsageMinute.index(endingAt: window.end), limit]
            ).compactMap { row in
                guard let kind = UsageItem.Kind(rawValue: row[1]), let meter = UsageMeter(rawValue: row[4]) else { return nil }
                return UsageMinute(minute: row[0], item: UsageItem(kind, row[2], category: row[3]), meter: meter, seconds: row[5])
            }
        }
    }

    /// Retention: deletes the single minutes before `minutesBefore` (their seconds stay in the
    /// quarter-hour sums, so reports of whole local days keep them; only `--explain` and the
    /// parts of quarter hours at a window's edges are lost) and the sums before
    /// `quartersBefore`. Returns how many minutes and sums went.
    @discardableResult
    public func pruneUsage(minutesBefore: Date, quartersBefore: Date) throws -> (minutes: Int, quarters: Int) {
        try requireWritable()
        return try database.write { db in
            try db.execute(sql: "DELETE FROM usageMinute WHERE minute < ?", arguments: [UsageMinute.index(of: minutesBefore)])
            let minutes = db.changesCount
            // A quarter is deleted only when it lies wholly before the cutoff.
            try db.execute(
                sql: "DELETE FROM usageQuarter WHERE bucket < ?", arguments: [floorDivide(UsageMinute.index(of: quartersBefore), 15)])
            return (minutes, db.changesCount)
        }
    }

    static func kind(of grouping: UsageGrouping) -> UsageItem.Kind {
        switch grouping {
        case .app, .category: .app
        case .site: .site
        case .group: .group
        }
    }

    // MARK: - Allowance ledgers

    /// Every saved allowance ledger, by allowance name. A ledger that cannot be read is left
    /// out (the allowance starts a fresh one, and the caller logs it).
    public func allowanceLedgers() throws -> [String: AllowanceLedger] {
        try database.read { db in
            var result: [String: AllowanceLedger] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, ledger FROM allowanceLedger") {
                if let ledger = try? StateStore.decoder.decode(AllowanceLedger.self, from: row["ledger"] as Data) {
                    result[row["name"]] = ledger
                }
            }
            return result
        }
    }

    /// Saves ledgers (nil removes one), in one transaction.
    public func saveAllowanceLedgers(_ ledgers: [String: AllowanceLedger?]) throws {
        guard !ledgers.isEmpty else { return }
        try requireWritable()
        try database.write { db in try Self.saveAllowanceLedgers(ledgers, db) }
    }

    static func saveAllowanceLedgers(_ ledgers: [String: AllowanceLedger?], _ db: Database) throws {
        for (name, ledger) in ledgers {
            if let ledger {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO allowanceLedger (name, ledger) VALUES (?, ?)",
                    arguments: [name, try StateStore.encoder.encode(ledger)])
            } else {
                try db.execute(sql: "DELETE FROM allowanceLedger WHERE name = ?", arguments: [name])
            }
        }
    }
}

/// `a / b` rounded towards minus infinity (minutes before 1970 belong to earlier quarters).
private func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
