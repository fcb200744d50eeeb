import Foundation

/// The field-by-field matching rules shared by systemd calendar expressions, cron expressions
/// and the starts of weekly windows, and the search for the next time they match.
///
/// The search follows systemd's `find_next()` (src/shared/calendarspec.c) step by step, because
/// "exactly as systemd" includes its treatment of DST: it fills in fields from the year down,
/// and after each field it normalises the candidate the way `mktime()` with `tm_isdst = -1`
/// would. A wall-clock time inside a spring-forward gap is pushed forward by the gap's length
/// (glibc reads it with the offset from before the gap), the unit below the largest field that
/// moved restarts at its minimum, and the search continues from there; that is what makes
/// a start inside the gap disappear rather than fire at some other time. systemd's quirks are
/// kept too, because users compare with `systemd-analyze calendar`: the search starts one
/// microsecond after the base time, and a repetition that overflows its field (`*:0/7` at
/// 23:56 asks for minute 63) restarts only the unit just below the one that changed, so
/// `*:0/7` never elapses at 00:00.
///
/// The one deliberate difference concerns fall-back: systemd resolves a repeated wall-clock
/// time with whatever offset glibc's `mktime()` happened to use last. That is usually the
/// first occurrence, but it is the second when the search starts inside the second pass through
/// the repeated hour, or right after `~` (end-of-month) arithmetic looked at the next month.
/// Here a repeated time always means its first occurrence, and a search starting in the second
/// pass skips the rest of it, so every wall-clock time elapses once and the set of elapses does
/// not depend on where a search starts (the daemon evaluates statelessly and must get the same
/// answer at every instant).
struct CalendarPattern: Sendable, Hashable {
    /// One item of a comma-separated list: `start`, `start..stop`, `start/step` or
    /// `start..stop/step`. For `~` days the numbers count back from the end of the month.
    struct Component: Sendable, Hashable, Comparable {
        var start: Int
        /// The last allowed value; `nil` for an open-ended repetition or a single value.
        var stop: Int?
        /// The repetition; 0 for a single value, 1 for a plain range.
        var step: Int

        init(_ start: Int, stop: Int? = nil, step: Int = 0) {
            self.start = start
            self.stop = stop
            self.step = step
        }

        static func < (a: Component, b: Component) -> Bool {
            (a.start, a.stop ?? -1, a.step) < (b.start, b.stop ?? -1, b.step)
        }
    }

    /// How the day-of-month list and the weekday set combine.
    enum DayRule: Sendable, Hashable {
        /// A day must match both (systemd; cron when one of them is `*`).
        case both
        /// A day matches if either does (cron when both fields are restricted).
        case either
    }

    /// `nil` means any value.
    var years: [Component]?
    var months: [Component]?
    var days: [Component]?
    /// Whether `days` counts back from the end of the month (`*-*~01` is the last day).
    var endOfMonth = false
    /// `nil` means every day of the week.
    var weekdays: WeekdaySet?
    var hours: [Component]?
    var minutes: [Component]?
    var seconds: [Component]?
    var dayRule = DayRule.both

    /// systemd stops looking after this year, so impossible dates such as `*-02-30` end.
    static let maximumYear = 2199
    /// systemd's safety valve against searches that never settle.
    static let iterationLimit = 1000

    // MARK: Searching

    /// The first instant strictly after `instant` whose wall-clock time in `zone` matches,
    /// or `nil` if there is none before the end of `maximumYear`.
    func nextElapse(after instant: Date, in zone: TimeZone) -> Date? {
        let resolver = LocalTimeResolver(zone: zone)
        let base = instant.timeIntervalSince1970.rounded(.down)
        // Beyond this nothing can match, and far larger values would overflow the arithmetic.
        guard base.isFinite, abs(base) < 8e9 else { return nil }
        // Like systemd, search from just after `instant`: its own second is already past.
        var anchor = Int64(base)
        if let passEnd = resolver.endOfSecondPass(containing: anchor + 1) { anchor = passEnd - 1 }
        let origin = resolver.civilTime(at: anchor)
        var c = origin

        for _ in 0..<Self.iterationLimit {
            c = Self.normalized(c, resolver)

            if let years {
                guard let year = Self.firstMatch(in: years, atLeast: c.year) else { return nil }
                if year != c.year { c = CivilTime(year: year, month: 1, day: 1) }
            }
            guard settle(&c, resolver) == .exact else { return nil }

            if let months {
                guard let month = Self.firstMatch(in: months, atLeast: c.month) else {
                    c = CivilTime(year: c.year + 1, month: 1, day: 1)
                    continue
                }
                if month != c.month { c = CivilTime(year: c.year, month: month, day: 1) }
            }
            switch settle(&c, resolver) {
            case .exhausted: return nil
            case .moved: continue
            case .exact: break
            }

            guard let day = matchingDay(from: c) else {
                c = CivilTime(year: c.year, month: c.month + 1, day: 1)
                continue
            }
            if day != c.day { c = CivilTime(year: c.year, month: c.month, day: day) }
            switch settle(&c, resolver) {
            case .exhausted: return nil
            case .moved: continue
            case .exact: break
            }
            if dayRule == .both, let weekdays, !weekdays.contains(c.weekday) {
                c = CivilTime(year: c.year, month: c.month, day: c.day + 1)
                continue
            }

            if let hours {
                guard let hour = Self.firstMatch(in: hours, atLeast: c.hour) else {
                    c = CivilTime(year: c.year, month: c.month, day: c.day + 1)
                    continue
                }
                if hour != c.hour { (c.hour, c.minute, c.second) = (hour, 0, 0) }
            }
            switch settle(&c, resolver) {
            case .exhausted: return nil
            case .moved: continue
            case .exact: break
            }

            if let minutes {
                guard let minute = Self.firstMatch(in: minutes, atLeast: c.minute) else {
                    (c.hour, c.minute, c.second) = (c.hour + 1, 0, 0)
                    continue
                }
                if minute != c.minute { (c.minute, c.second) = (minute, 0) }
            }
            switch settle(&c, resolver) {
            case .exhausted: return nil
            case .moved: continue
            case .exact: break
            }

            // A missing seconds list means every second, as systemd's `*` (0/1) does.
            let lowest = c == origin ? c.second + 1 : c.second
            guard let second = Self.firstMatch(in: seconds ?? [Component(0, step: 1)], atLeast: lowest) else {
                (c.minute, c.second) = (c.minute + 1, 0)
                continue
            }
            c.second = second
            switch settle(&c, resolver) {
            case .exhausted: return nil
            case .moved: continue
            case .exact: break
            }

            switch resolver.resolve(c.localSeconds) {
            case .unique(let elapse), .repeated(let elapse, _):
                return Date(timeIntervalSince1970: TimeInterval(elapse))
            case .skipped:
                // `settle` has just accepted this time, so it exists; keep searching regardless.
                continue
            }
        }
        return nil
    }

    /// The first day of `c`'s month, from `c.day` on, allowed by the day-of-month list (and,
    /// for cron's "either" rule, the weekday set); the weekday check of the "both" rule comes
    /// later, after normalisation, as in systemd.
    private func matchingDay(from c: CivilTime) -> Int? {
        let length = CivilTime.daysInMonth(year: c.year, month: c.month)
        switch dayRule {
        case .both:
            guard let days else { return c.day }
            return Self.firstMatch(in: days, atLeast: c.day, monthLength: endOfMonth ? length : nil)
        case .either:
            guard c.day <= length else { return nil }
            return (c.day...length).first { day in
                let dayOfMonth = days.map { Self.firstMatch(in: $0, atLeast: day) == day } ?? true
                let dayOfWeek = weekdays?.contains(CivilTime(year: c.year, month: c.month, day: day).weekday) ?? true
                return dayOfMonth || dayOfWeek
            }
        }
    }

    private enum Bounds: Sendable { case exact, moved, exhausted }

    /// systemd's `tm_within_bounds()`: whether `c` is a real wall-clock time as it stands; if
    /// normalising moves it, `c` becomes the normalised time with the unit below the largest
    /// moved field reset (so normalising 02-30 to 03-02 does not skip 03-01).
    private func settle(_ c: inout CivilTime, _ resolver: LocalTimeResolver) -> Bounds {
        guard c.year <= Self.maximumYear else { return .exhausted }
        let settled = Self.normalized(c, resolver)
        guard settled != c else { return .exact }
        var restart = settled
        if settled.year != c.year {
            restart.month = 1
        } else if settled.month != c.month {
            restart.day = 1
        } else if settled.day != c.day {
            restart.hour = 0
        } else if settled.hour != c.hour {
            restart.minute = 0
        } else if settled.minute != c.minute {
            restart.second = 0
        }
        c = restart
        return .moved
    }

    /// What `mktime()` with `tm_isdst = -1` makes of these fields: overflowing fields carried,
    /// and a time inside a spring-forward gap moved forward by the gap's length (glibc prefers
    /// the daylight-saving reading of a nonexistent time, which lies after the gap).
    private static func normalized(_ c: CivilTime, _ resolver: LocalTimeResolver) -> CivilTime {
        let local = c.localSeconds
        if case .skipped(_, let shift) = resolver.resolve(local) {
            return CivilTime(localSeconds: local + shift)
        }
        return CivilTime(localSeconds: local)
    }

    /// systemd's `find_matching_component()`: the smallest value ≥ `value` any component allows
    /// (possibly beyond the field's range, which the following normalisation then carries).
    static func firstMatch(in chain: [Component], atLeast value: Int, monthLength: Int? = nil) -> Int? {
        var best: Int?
        for component in chain {
            var (start, stop) = (component.start, component.stop)
            if let length = monthLength {
                // `~n` is the n-th day counted back from the end; a range flips direction.
                start = length + 1 - component.start
                if let last = component.stop { (start, stop) = (length + 1 - last, start) }
            }
            var candidate: Int?
            if start >= value {
                candidate = start
            } else if component.step > 0 {
                let next = start + component.step * ((value - start + component.step - 1) / component.step)
                if stop.map({ next <= $0 }) ?? true { candidate = next }
            }
            if let candidate, best.map({ candidate < $0 }) ?? true { best = candidate }
        }
        return best
    }

    // MARK: Normalising and printing

    /// systemd's `normalize_chain()`: ranges end on a value they actually reach, items sorted,
    /// duplicates dropped. A range reduced to one value becomes that value.
    static func normalizedChain(_ chain: [Component]) -> [Component] {
        let adjusted = chain.map { component -> Component in
            var result = component
            if let stop = component.stop, stop > component.start, component.step > 0 {
                result.stop = stop - (stop - component.start) % component.step
            }
            if result.stop == result.start { (result.stop, result.step) = (nil, 0) }
            return result
        }
        var unique: [Component] = []
        for component in adjusted.sorted() where unique.last != component { unique.append(component) }
        return unique
    }

    /// The expression in systemd's normalized form, e.g. `Mon..Fri *-*-* 08..16/2:00:00`.
    func systemdText(zoneName: String?) -> String {
        var text = weekdays?.systemdText.map { $0 + " " } ?? ""
        text += Self.format(years, width: 4) + "-" + Self.format(months, width: 2)
        text += (endOfMonth ? "~" : "-") + Self.format(days, width: 2)
        text += " " + Self.format(hours, width: 2) + ":" + Self.format(minutes, width: 2) + ":"
        text += seconds == [Component(0, step: 1)] ? "*" : Self.format(seconds, width: 2)
        if let zoneName { text += " " + zoneName }
        return text
    }

    private static func format(_ chain: [Component]?, width: Int) -> String {
        guard let chain else { return "*" }
        return chain.map { component in
            var text = padded(component.start, width)
            if let stop = component.stop, stop > 0 { text += ".." + padded(stop, width) }
            let isPlainRange = (component.stop ?? 0) > 0 && component.step == 1
            if component.step > 0 && !isPlainRange { text += "/\(component.step)" }
            return text
        }.joined(separator: ",")
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
