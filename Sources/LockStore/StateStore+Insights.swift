import Foundation
import GRDB
import LockCore

extension StateStore {
    // MARK: - Focus

    /// The sessions that were in force on this machine at some time in `window` (a block aimed
    /// only at other devices is no focus of this machine's user): their start, their end (nil
    /// while still active) and their planned end, oldest first.
    public func sessionSpans(overlapping window: DateInterval) throws -> [(start: Date, end: Date?, plannedEnd: Date)] {
        try database.read { db in
            // Dates converted to seconds by SQLite: ten thousand sessions a year, three dates each,
            // are read much faster as numbers than parsed as text one by one.
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(Self.seconds("startedAt")), \(Self.seconds("endedAt")), \(Self.seconds("plannedEnd")) FROM history
                    WHERE startedAt < ? AND (endedAt IS NULL OR endedAt > ?) AND local ORDER BY startedAt
                    """, arguments: [window.end, window.start])
            var spans: [(Date, Date?, Date)] = []
            while let row = try rows.next() {
                let end: Double? = row[1]
                spans.append(
                    (Date(timeIntervalSince1970: row[0]), end.map(Date.init(timeIntervalSince1970:)), Date(timeIntervalSince1970: row[2])))
            }
            return spans
        }
    }

    /// When each Pomodoro focus phase completed in `window` ended.
    public func pomodoroCompletions(in window: DateInterval) throws -> [Date] {
        try database.read { db in
            try Double.fetchAll(
                db, sql: "SELECT \(Self.seconds("endedAt")) FROM pomodoroFocus WHERE endedAt >= ? AND endedAt < ? ORDER BY endedAt",
                arguments: [window.start, window.end]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// SQL for a date column (GRDB's UTC text) as seconds since 1970, to the millisecond.
    static func seconds(_ column: String) -> String { "(julianday(\(column)) - 2440587.5) * 86400.0" }

    // MARK: - Emergency access

    /// The most recent early ends (emergency access), newest first; at most `limit`.
    public func unlockRecords(limit: Int = 1000) throws -> [UnlockRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM emergencyUnlock ORDER BY at DESC LIMIT ?", arguments: [limit]).map { row in
                UnlockRecord(
                    session: row["session"], profile: row["profile"], at: row["at"],
                    boot: BootTime(nanoseconds: row["bootNanoseconds"]), bootID: row["bootID"])
            }
        }
    }

    // MARK: - Blocked attempts

    /// Appends attempts, and adds them to their sums (quarter hour, UTC day, UTC month), in one
    /// transaction.
    public func recordAttempts(_ attempts: [BlockedAttempt]) throws {
        guard !attempts.isEmpty else { return }
        try requireWritable()
        try database.write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO attempt (at, kind, name, detail, profile, source, client, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let quarter = try db.cachedStatement(
                sql: """
                    INSERT INTO attemptQuarter (bucket, kind, count) VALUES (?, ?, ?)
                    ON CONFLICT (bucket, kind) DO UPDATE SET count = count + excluded.count
                    """)
            let day = try db.cachedStatement(
                sql: """
                    INSERT INTO attemptDay (day, kind, name, count) VALUES (?, ?, ?, ?)
                    ON CONFLICT (day, kind, name) DO UPDATE SET count = count + excluded.count
                    """)
            let month = try db.cachedStatement(
                sql: """
                    INSERT INTO attemptMonth (month, kind, name, count) VALUES (?, ?, ?, ?)
                    ON CONFLICT (month, kind, name) DO UPDATE SET count = count + excluded.count
                    """)
            for attempt in attempts {
                let at = attempt.at.timeIntervalSince1970
                let kind = attempt.kind.rawValue
                try insert.execute(arguments: [
                    at, kind, attempt.name, attempt.detail, attempt.profile, attempt.source.rawValue,
                    attempt.client, attempt.count,
                ])
                try quarter.execute(arguments: [AttemptSums.quarter(of: at), kind, attempt.count])
                try day.execute(arguments: [AttemptSums.day(of: at), kind, attempt.name, attempt.count])
                try month.execute(arguments: [AttemptSums.month(ofDay: AttemptSums.day(of: at)), kind, attempt.name, attempt.count])
            }
        }
    }

    /// Attempts of sites and of apps on each of `days` (consecutive, in order, each starting on
    /// a quarter hour as local midnights do, the first and last possibly cut by the window).
    /// Whole quarter hours come from their sums, summed per day by SQLite; the parts of the
    /// days outside them from the attempts themselves, so the counts are exact.
    public func attemptsPerDay(_ days: [DateInterval]) throws -> [(sites: Int, apps: Int)] {
        var result = [(sites: Int, apps: Int)](repeating: (0, 0), count: days.count)
        guard let first = days.first, let last = days.last else { return result }
        let window = DateInterval(start: first.start, end: last.end)
        let plan = AttemptSums.Plan(window, unit: AttemptSums.quarterSeconds)
        try database.read { db in
            if let whole = plan.whole {
                // One query for every day: SQLite seeks each day's quarters by the primary key.
                var values: [String] = []
                var arguments: [any DatabaseValueConvertible] = []
                for (index, day) in days.enumerated() {
                    let low = max(whole.lowerBound, AttemptSums.quarter(of: day.start.timeIntervalSince1970.rounded(.up)))
                    let high = min(whole.upperBound, AttemptSums.quarter(of: day.end.timeIntervalSince1970.rounded(.up)))
                    guard low < high else { continue }
                    values.append("(?, ?, ?)")
                    arguments += [index, low, high]
                }
                if !values.isEmpty {
                    let cursor = try Row.fetchCursor(
                        db,
                        sql: """
                            WITH day(i, low, high) AS (VALUES \(values.joined(separator: ", ")))
                            SELECT day.i, attemptQuarter.kind = 'app', SUM(attemptQuarter.count) FROM day
                            JOIN attemptQuarter ON attemptQuarter.bucket >= day.low AND attemptQuarter.bucket < day.high
                            GROUP BY day.i, attemptQuarter.kind
                            """, arguments: StatementArguments(arguments))
                    while let row = try cursor.next() {
                        let index: Int = row[0]
                        let isApp: Bool = row[1]
                        if isApp { result[index].apps += row[2] } else { result[index].sites += row[2] }
                    }
                }
            }
            for edge in plan.edges {
                let cursor = try Row.fetchCursor(
                    db, sql: "SELECT at, kind = 'app', count FROM attempt WHERE at >= ? AND at < ?",
                    arguments: [edge.start, edge.end])
                while let row = try cursor.next() {
                    let at = Date(timeIntervalSince1970: row[0])
                    guard let index = days.firstIndex(where: { $0.start <= at && at < $0.end }) else { continue }
                    let isApp: Bool = row[1]
                    if isApp { result[index].apps += row[2] } else { result[index].sites += row[2] }
                }
            }
        }
        return result
    }

    /// The names (sites) or app ids tried most often in `window`, most first, with their
    /// counts; ties by name. Whole UTC months come from the monthly sums, other whole UTC days
    /// from the daily ones, the rest from the attempts themselves.
    public func topAttempts(_ kind: BlockedAttempt.Kind, in window: DateInterval, limit: Int) throws -> [(name: String, count: Int)] {
        try database.read { db in
            var totals: [String: Int] = [:]
            func add(_ sql: String, _ arguments: StatementArguments) throws {
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try cursor.next() {
                    let name: String = row[0]
                    totals[name, default: 0] += row[1]
                }
            }
            let days = AttemptSums.Plan(window, unit: 86_400)
            if let wholeDays = days.whole {
                let months = AttemptSums.wholeMonths(in: wholeDays)
                if let months {
                    try add(
                        "SELECT name, SUM(count) AS n FROM attemptMonth WHERE month >= ? AND month < ? AND kind = ? GROUP BY name",
                        [months.months.lowerBound, months.months.upperBound, kind.rawValue])
                }
                for range in months?.remainingDays ?? [wholeDays] where !range.isEmpty {
                    try add(
                        "SELECT name, SUM(count) AS n FROM attemptDay WHERE day >= ? AND day < ? AND kind = ? GROUP BY name",
                        [range.lowerBound, range.upperBound, kind.rawValue])
                }
            }
            for edge in days.edges {
                try add(
                    "SELECT name, SUM(count) AS n FROM attempt WHERE at >= ? AND at < ? AND kind = ? GROUP BY name",
                    [edge.start, edge.end, kind.rawValue])
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
                    let source = BlockedAttempt.Source(rawValue: row["source"])
                else { return nil }
                return BlockedAttempt(
                    kind: kind, name: row["name"], detail: row["detail"], profile: row["profile"], source: source,
                    client: row["client"], at: Date(timeIntervalSince1970: row["at"]), count: row["count"])
            }
        }
    }

    /// Deletes attempts from before `cutoff` (the retention setting), and the sums of periods
    /// wholly before it; returns how many attempts went.
    @discardableResult
    public func pruneAttempts(before cutoff: Date) throws -> Int {
        try requireWritable()
        return try database.write { db in
            let at = cutoff.timeIntervalSince1970
            try db.execute(sql: "DELETE FROM attempt WHERE at < ?", arguments: [at])
            let removed = db.changesCount
            let day = AttemptSums.day(of: at)
            try db.execute(sql: "DELETE FROM attemptQuarter WHERE bucket < ?", arguments: [AttemptSums.quarter(of: at)])
            try db.execute(sql: "DELETE FROM attemptDay WHERE day < ?", arguments: [day])
            try db.execute(sql: "DELETE FROM attemptMonth WHERE month < ?", arguments: [AttemptSums.month(ofDay: day)])
            return removed
        }
    }
}

/// The periods blocked attempts are summed over, and how a window splits into whole periods
/// (read from the sums) and edges (read from the attempts).
public enum AttemptSums {
    /// A quarter hour: every time zone's offset is a multiple of it.
    public static let quarterSeconds: Double = 900

    /// The quarter hour containing `seconds` since 1970.
    public static func quarter(of seconds: Double) -> Int64 { Int64((seconds / quarterSeconds).rounded(.down)) }

    /// The UTC day containing `seconds` since 1970 (days since 1970).
    public static func day(of seconds: Double) -> Int64 { Int64((seconds / 86_400).rounded(.down)) }

    /// The UTC month of a day (months since January 1970).
    public static func month(ofDay day: Int64) -> Int64 {
        let parts = utc.dateComponents([.year, .month], from: Date(timeIntervalSince1970: Double(day) * 86_400))
        return Int64((parts.year ?? 1970) - 1970) * 12 + Int64((parts.month ?? 1) - 1)
    }

    /// The first day of a month.
    static func firstDay(ofMonth month: Int64) -> Int64 {
        let year = Int(1970 + month.floorDivided(by: 12))
        let monthOfYear = Int(month - month.floorDivided(by: 12) * 12) + 1
        let date = utc.date(from: DateComponents(year: year, month: monthOfYear, day: 1)) ?? Date(timeIntervalSince1970: 0)
        return day(of: date.timeIntervalSince1970)
    }

    /// The whole months within a range of days, and the days before and after them.
    static func wholeMonths(in days: Range<Int64>) -> (months: Range<Int64>, remainingDays: [Range<Int64>])? {
        var first = month(ofDay: days.lowerBound)
        if firstDay(ofMonth: first) < days.lowerBound { first += 1 }
        var last = month(ofDay: days.upperBound)
        if firstDay(ofMonth: last) > days.upperBound { last -= 1 }
        guard first < last else { return nil }
        return (first..<last, [days.lowerBound..<firstDay(ofMonth: first), firstDay(ofMonth: last)..<days.upperBound])
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// A window split into whole periods of `unit` seconds and the edges outside them.
    struct Plan {
        /// Periods wholly inside the window (period numbers), if any.
        var whole: Range<Int64>?
        /// The parts outside them, as seconds since 1970.
        var edges: [(start: Double, end: Double)]

        init(_ window: DateInterval, unit: Double) {
            let start = window.start.timeIntervalSince1970
            let end = window.end.timeIntervalSince1970
            let first = Int64((start / unit).rounded(.up))
            let last = Int64((end / unit).rounded(.down))
            guard first < last else {
                whole = nil
                edges = [(start, end)]
                return
            }
            whole = first..<last
            edges = []
            if start < Double(first) * unit { edges.append((start, Double(first) * unit)) }
            if Double(last) * unit < end { edges.append((Double(last) * unit, end)) }
        }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
