import Foundation
import GRDB
import LockCore

extension StateStore {
    /// Seconds per bucket of `attemptBucket`: a quarter hour, which every time zone's offset
    /// is a multiple of, so that buckets never straddle a local midnight.
    public static let attemptBucketSeconds: Double = 900

    // MARK: - Focus

    /// The sessions that were in force at some time in `window`: their start, their end (nil
    /// while still active) and their planned end, oldest first.
    public func sessionSpans(overlapping window: DateInterval) throws -> [(start: Date, end: Date?, plannedEnd: Date)] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT startedAt, endedAt, plannedEnd FROM history WHERE startedAt < ? AND (endedAt IS NULL OR endedAt > ?) ORDER BY startedAt
                """, arguments: [window.end, window.start]).map { ($0["startedAt"], $0["endedAt"], $0["plannedEnd"]) }
        }
    }

    /// When each Pomodoro focus phase completed in `window` ended.
    public func pomodoroCompletions(in window: DateInterval) throws -> [Date] {
        try database.read { db in
            try Date.fetchAll(db, sql: "SELECT endedAt FROM pomodoroFocus WHERE endedAt >= ? AND endedAt < ? ORDER BY endedAt",
                              arguments: [window.start, window.end])
        }
    }

    // MARK: - Emergency access

    /// The most recent early ends (emergency access), newest first; at most `limit`.
    public func unlockRecords(limit: Int = 1000) throws -> [UnlockRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM emergencyUnlock ORDER BY at DESC LIMIT ?", arguments: [limit]).map { row in
                UnlockRecord(session: row["session"], profile: row["profile"], at: row["at"],
                             boot: BootTime(nanoseconds: row["bootNanoseconds"]), bootID: row["bootID"])
            }
        }
    }

    // MARK: - Blocked attempts

    /// Appends attempts, and adds them to their quarter-hour sums, in one transaction.
    public func recordAttempts(_ attempts: [BlockedAttempt]) throws {
        guard !attempts.isEmpty else { return }
        try requireWritable()
        try database.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO attempt (at, kind, name, detail, profile, source, client, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let sum = try db.cachedStatement(sql: """
                INSERT INTO attemptBucket (bucket, kind, name, count) VALUES (?, ?, ?, ?)
                ON CONFLICT (bucket, kind, name) DO UPDATE SET count = count + excluded.count
                """)
            for attempt in attempts {
                let at = attempt.at.timeIntervalSince1970
                try insert.execute(arguments: [at, attempt.kind.rawValue, attempt.name, attempt.detail, attempt.profile,
                                               attempt.source.rawValue, attempt.client, attempt.count])
                try sum.execute(arguments: [StateStore.bucket(of: at), attempt.kind.rawValue, attempt.name, attempt.count])
            }
        }
    }

    /// Attempts in `window` summed per quarter hour and kind: each bucket's start and counts.
    /// Buckets that the window cuts are counted from the attempts themselves, so the sums are exact.
    public func attemptTimeline(in window: DateInterval) throws -> [(start: Date, kind: BlockedAttempt.Kind, count: Int)] {
        try database.read { db in
            let (first, last) = StateStore.wholeBuckets(window)
            var rows: [(Date, BlockedAttempt.Kind, Int)] = []
            if first < last {
                for row in try Row.fetchAll(db, sql: """
                    SELECT bucket, kind, SUM(count) AS n FROM attemptBucket WHERE bucket >= ? AND bucket < ? GROUP BY bucket, kind
                    """, arguments: [first, last]) {
                    guard let kind = BlockedAttempt.Kind(rawValue: row["kind"]) else { continue }
                    let bucket: Int64 = row["bucket"]
                    rows.append((Date(timeIntervalSince1970: Double(bucket) * StateStore.attemptBucketSeconds), kind, row["n"]))
                }
            }
            for edge in StateStore.edges(window, first: first, last: last) {
                for row in try Row.fetchAll(db, sql: """
                    SELECT at, kind, count FROM attempt WHERE at >= ? AND at < ?
                    """, arguments: [edge.start, edge.end]) {
                    guard let kind = BlockedAttempt.Kind(rawValue: row["kind"]) else { continue }
                    rows.append((Date(timeIntervalSince1970: row["at"]), kind, row["count"]))
                }
            }
            return rows
        }
    }

    /// The names (sites) or app ids tried most often in `window`, most first, with their
    /// counts; ties by name.
    public func topAttempts(_ kind: BlockedAttempt.Kind, in window: DateInterval, limit: Int) throws -> [(name: String, count: Int)] {
        try database.read { db in
            let (first, last) = StateStore.wholeBuckets(window)
            var totals: [String: Int] = [:]
            if first < last {
                for row in try Row.fetchAll(db, sql: """
                    SELECT name, SUM(count) AS n FROM attemptBucket WHERE bucket >= ? AND bucket < ? AND kind = ? GROUP BY name
                    """, arguments: [first, last, kind.rawValue]) {
                    totals[row["name"], default: 0] += row["n"]
                }
            }
            for edge in StateStore.edges(window, first: first, last: last) {
                for row in try Row.fetchAll(db, sql: """
                    SELECT name, SUM(count) AS n FROM attempt WHERE at >= ? AND at < ? AND kind = ? GROUP BY name
                    """, arguments: [edge.start, edge.end, kind.rawValue]) {
                    totals[row["name"], default: 0] += row["n"]
                }
            }
            let sorted = totals.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            return sorted.prefix(max(limit, 0)).map { ($0.key, $0.value) }
        }
    }

    /// The most recent attempts, newest first.
    public func recentAttempts(limit: Int) throws -> [BlockedAttempt] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM attempt ORDER BY at DESC, id DESC LIMIT ?", arguments: [limit]).compactMap { row in
                guard let kind = BlockedAttempt.Kind(rawValue: row["kind"]),
                      let source = BlockedAttempt.Source(rawValue: row["source"]) else { return nil }
                return BlockedAttempt(kind: kind, name: row["name"], detail: row["detail"], profile: row["profile"], source: source,
                                      client: row["client"], at: Date(timeIntervalSince1970: row["at"]), count: row["count"])
            }
        }
    }

    /// Deletes attempts from before `cutoff` (the retention setting); returns how many rows went.
    @discardableResult
    public func pruneAttempts(before cutoff: Date) throws -> Int {
        try requireWritable()
        return try database.write { db in
            let at = cutoff.timeIntervalSince1970
            try db.execute(sql: "DELETE FROM attempt WHERE at < ?", arguments: [at])
            let removed = db.changesCount
            // Only buckets wholly before the cutoff: a bucket it cuts stays until the next run.
            try db.execute(sql: "DELETE FROM attemptBucket WHERE bucket < ?", arguments: [StateStore.bucket(of: at)])
            return removed
        }
    }

    static func bucket(of seconds: Double) -> Int64 { Int64((seconds / attemptBucketSeconds).rounded(.down)) }

    /// The buckets wholly inside `window`: [first, last).
    static func wholeBuckets(_ window: DateInterval) -> (first: Int64, last: Int64) {
        let first = Int64((window.start.timeIntervalSince1970 / attemptBucketSeconds).rounded(.up))
        let last = bucket(of: window.end.timeIntervalSince1970)
        return (first, max(first, last))
    }

    /// The parts of `window` outside its whole buckets, as seconds since 1970.
    static func edges(_ window: DateInterval, first: Int64, last: Int64) -> [(start: Double, end: Double)] {
        let start = window.start.timeIntervalSince1970
        let end = window.end.timeIntervalSince1970
        guard first < last else { return [(start, end)] }
        var result: [(Double, Double)] = []
        let firstStart = Double(first) * attemptBucketSeconds
        let lastStart = Double(last) * attemptBucketSeconds
        if start < firstStart { result.append((start, firstStart)) }
        if lastStart < end { result.append((lastStart, end)) }
        return result
    }
}
