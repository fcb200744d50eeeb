import Foundation

/// Reads the `OnCalendar=` syntax of `man systemd.time` into a `CalendarPattern`.
///
/// The grammar and the normalisation follow systemd's `calendar_spec_from_string()` so that
/// the same texts are accepted and print the same normalized form; the differences are that
/// errors say precisely what is wrong, surrounding whitespace is ignored, fractional seconds
/// are refused, and a trailing time-zone abbreviation of the machine's own zone (`CET` while
/// `TZ=Europe/Berlin`) is read as the IANA zone of that name rather than as a DST flag.
struct CalendarSpecParser: Sendable {
    /// The parsed rules and the trailing zone (`UTC` or an IANA name), if one was given.
    struct Result: Sendable {
        var pattern: CalendarPattern
        var zoneName: String?
    }

    private let expression: String
    private let characters: [Character]
    private var position = 0
    private var pattern = CalendarPattern()

    private init(expression: String, body: Substring) {
        self.expression = expression
        self.characters = Array(body)
    }

    static func parse(_ text: String) throws(ScheduleError) -> Result {
        let expression = text.trimmingCharacters(in: .whitespaces)
        guard !expression.isEmpty else {
            throw ScheduleError(field: .on, value: text, reason: "empty calendar expression (e.g. 'Mon..Fri 09:00')")
        }
        var body = Substring(expression)
        var zoneName: String?
        if let space = body.lastIndex(of: " ") {
            let last = String(body[body.index(after: space)...])
            if last.uppercased() == "UTC" {
                zoneName = "UTC"
            } else if LocalTimeResolver.timeZone(named: last) != nil {
                zoneName = last
            } else if looksLikeZoneName(last) {
                throw ScheduleError(
                    field: .on, value: last, reason: "\(last) in '\(expression)' is not a known time zone (e.g. Europe/Berlin, UTC)")
            }
            if zoneName != nil { body = body[..<space] }
        }
        body = Substring(body.trimmingCharacters(in: .whitespaces))

        var parser = CalendarSpecParser(expression: expression, body: body)
        if let shorthand = shorthand(String(body).lowercased()) {
            parser.pattern = shorthand
        } else if body.first == "@" {
            parser.pattern = try parser.parseTimestamp()
            zoneName = "UTC"
        } else {
            try parser.parseWeekdays()
            try parser.parseDate()
            try parser.parseTime()
            if let unexpected = parser.peek() { throw parser.unexpected(unexpected) }
        }
        try parser.normalizeAndValidate()
        return Result(pattern: parser.pattern, zoneName: zoneName)
    }

    // MARK: Grammar

    private static func shorthand(_ word: String) -> CalendarPattern? {
        let midnight = [CalendarPattern.Component(0)]
        var pattern = CalendarPattern(hours: midnight, minutes: midnight, seconds: midnight)
        switch word {
        case "minutely": return CalendarPattern(seconds: midnight)
        case "hourly": return CalendarPattern(minutes: midnight, seconds: midnight)
        case "daily": break
        case "weekly": pattern.weekdays = WeekdaySet(.monday)
        case "monthly": pattern.days = [.init(1)]
        case "yearly", "annually", "anually": (pattern.months, pattern.days) = ([.init(1)], [.init(1)])
        case "quarterly": (pattern.months, pattern.days) = ([.init(1), .init(4), .init(7), .init(10)], [.init(1)])
        case "semiannually", "semi-annually", "biannually", "bi-annually":
            (pattern.months, pattern.days) = ([.init(1), .init(7)], [.init(1)])
        default: return nil
        }
        return pattern
    }

    /// A last word that is meant as a zone but is not one should be reported as such, rather
    /// than as a confusing syntax error somewhere in the date.
    private static func looksLikeZoneName(_ word: String) -> Bool {
        guard let first = word.first, first.isLetter else { return false }
        let lowered = word.lowercased()
        if word.contains("/") { return true }
        let isWord = word.allSatisfy { $0.isLetter || $0 == "_" }
        return isWord && word.count >= 3 && Weekday(name: lowered) == nil && shorthand(lowered) == nil
    }

    /// `@SECONDS`: one instant, which systemd turns into fixed UTC fields.
    private func parseTimestamp() throws(ScheduleError) -> CalendarPattern {
        let digits = String(characters.dropFirst())
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(digits),
            seconds < 7_258_118_400  // 2200-01-01
        else {
            throw ScheduleError(field: .on, value: expression, reason: "\(expression) is not a valid @SECONDS timestamp")
        }
        let c = CivilTime(localSeconds: seconds)
        return CalendarPattern(
            years: [.init(c.year)], months: [.init(c.month)], days: [.init(c.day)],
            hours: [.init(c.hour)], minutes: [.init(c.minute)], seconds: [.init(c.second)])
    }

    /// `Mon..Fri`, `Sat,Sun`, `Mon,Wed..Fri`, `Mon-Fri`; absent is fine.
    private mutating func parseWeekdays() throws(ScheduleError) {
        var bits = WeekdaySet()
        var rangeStart: Weekday?
        var first = true
        while true {
            guard let (day, length) = weekdayName(at: position) else {
                if first { return }
                throw ScheduleError(
                    field: .on, value: expression, reason: "\(expression): expected a weekday after '\(String(characters[..<position]))'")
            }
            let after = position + length
            if after < characters.count, !["-", ".", ",", " "].contains(characters[after]) {
                throw ScheduleError(
                    field: .on, value: expression, reason: "\(expression): '\(String(characters[position...after]))…' is not a weekday")
            }
            bits.insert(WeekdaySet(day))
            if let start = rangeStart {
                guard start <= day else {
                    throw ScheduleError(
                        field: .on, value: expression,
                        reason:
                            "\(expression): weekday range \(start.systemdName)..\(day.systemdName) runs backwards (write e.g. Mon,Fri..Sun)"
                    )
                }
                for member in Weekday.allCases where member > start && member < day { bits.insert(WeekdaySet(member)) }
            }
            position = after
            first = false
            switch peek() {
            case nil:
                pattern.weekdays = bits
                return
            case " ":
                skipSpaces()
                pattern.weekdays = bits
                return
            case ".", "-":
                let isDots = peek() == "."
                guard rangeStart == nil, !isDots || peek(1) == "." else { throw unexpected(peek()!) }
                rangeStart = day
                position += isDots ? 2 : 1
            case ",":
                rangeStart = nil
                position += 1
            default:
                throw unexpected(peek()!)
            }
            // A trailing comma is tolerated (as systemd does), an open range is not.
            if peek() == nil || peek() == " " {
                guard rangeStart == nil else {
                    throw ScheduleError(
                        field: .on, value: expression, reason: "\(expression): weekday range after \(day.systemdName) has no end")
                }
                skipSpaces()
                pattern.weekdays = bits
                return
            }
        }
    }

    private func weekdayName(at index: Int) -> (Weekday, Int)? {
        for day in Weekday.allCases {
            for name in [day.fullName, day.shortName] where index + name.count <= characters.count {
                if String(characters[index..<index + name.count]).lowercased() == name { return (day, name.count) }
            }
        }
        return nil
    }

    /// `YEAR-MONTH-DAY`, `MONTH-DAY` (`~` before the day counts from the month's end), or
    /// nothing; a first chain followed by `:` was the time, so the position is restored.
    private mutating func parseDate() throws(ScheduleError) {
        guard peek() != nil else { return }
        let mark = position
        let first = try parseChain(seconds: false)
        if peek() == nil || peek() == ":" {
            position = mark
            return
        }
        try parseDateSeparator()
        let second = try parseChain(seconds: false)
        if peek() == nil || peek() == " " {
            (pattern.months, pattern.days) = (first, second)
            skipSpaces()
            return
        }
        guard !pattern.endOfMonth else { throw unexpected(peek()!) }
        try parseDateSeparator()
        let third = try parseChain(seconds: false)
        guard peek() == nil || peek() == " " else { throw unexpected(peek()!) }
        (pattern.years, pattern.months, pattern.days) = (first, second, third)
        skipSpaces()
    }

    private mutating func parseDateSeparator() throws(ScheduleError) {
        switch peek() {
        case "-": break
        case "~": pattern.endOfMonth = true
        case let other?: throw unexpected(other)
        case nil: throw incomplete()
        }
        position += 1
    }

    /// `HOUR:MINUTE[:SECOND]`; absent means midnight, absent seconds mean `:00`.
    private mutating func parseTime() throws(ScheduleError) {
        let zero = [CalendarPattern.Component(0)]
        guard peek() != nil else {
            (pattern.hours, pattern.minutes, pattern.seconds) = (zero, zero, zero)
            return
        }
        pattern.hours = try parseChain(seconds: false)
        try expect(":")
        pattern.minutes = try parseChain(seconds: false)
        guard peek() != nil else {
            pattern.seconds = zero
            return
        }
        try expect(":")
        pattern.seconds = try parseChain(seconds: true)
    }

    /// `*`, or a comma-separated list of `N`, `N..M`, `N/S`, `N..M/S`. `nil` means "any"; a `*`
    /// for seconds is stored as `0/1`, as systemd does.
    private mutating func parseChain(seconds: Bool) throws(ScheduleError) -> [CalendarPattern.Component]? {
        if peek() == "*" {
            position += 1
            if peek() == "/" {
                throw ScheduleError(
                    field: .on, value: expression,
                    reason: "\(expression): '*/N' is cron syntax; systemd writes a repetition from the start value, e.g. 0/15")
            }
            return seconds ? [CalendarPattern.Component(0, step: 1)] : nil
        }
        var chain: [CalendarPattern.Component] = []
        repeat {
            var component = CalendarPattern.Component(try parseNumber(seconds: seconds))
            if peek() == ".", peek(1) == "." {
                position += 2
                component.stop = try parseNumber(seconds: seconds)
                component.step = 1
            }
            if peek() == "/" {
                position += 1
                component.step = try parseNumber(seconds: seconds)
                guard component.step > 0 else {
                    throw ScheduleError(field: .on, value: expression, reason: "\(expression): a repetition of /0 never advances")
                }
            }
            if let next = peek(), !" ,-~:".contains(next) { throw unexpected(next) }
            chain.append(component)
        } while consume(",")
        return chain
    }

    private mutating func parseNumber(seconds: Bool) throws(ScheduleError) -> Int {
        let start = position
        while let character = peek(), character.isASCII, character.isNumber { position += 1 }
        guard position > start else {
            if let character = peek() { throw unexpected(character) }
            throw incomplete()
        }
        guard let value = Int(String(characters[start..<position])), value <= Int(Int32.max) else {
            throw ScheduleError(
                field: .on, value: String(characters[start..<position]),
                reason: "\(expression): \(String(characters[start..<position])) is too large")
        }
        if seconds, peek() == ".", peek(1) != "." {
            throw ScheduleError(field: .on, value: expression, reason: "\(expression): fractional seconds are not supported")
        }
        return value
    }

    // MARK: Normalisation and validation

    private mutating func normalizeAndValidate() throws(ScheduleError) {
        if let weekdays = pattern.weekdays, weekdays.isEmpty || weekdays == .all { pattern.weekdays = nil }
        if pattern.days == nil { pattern.endOfMonth = false }
        // Two-digit years, as systemd reads them: 12 → 2012, 89 → 1989.
        pattern.years = pattern.years?.map { component in
            var result = component
            result.start = Self.fullYear(component.start)
            result.stop = component.stop.map(Self.fullYear)
            return result
        }
        try validate(pattern.years, "year", 1970...CalendarPattern.maximumYear)
        try validate(pattern.months, "month", 1...12)
        try validate(pattern.days, "day", 1...31, endOfMonth: pattern.endOfMonth)
        try validate(pattern.hours, "hour", 0...23)
        try validate(pattern.minutes, "minute", 0...59)
        try validate(pattern.seconds, "second", 0...59)
        pattern.years = pattern.years.map(CalendarPattern.normalizedChain)
        pattern.months = pattern.months.map(CalendarPattern.normalizedChain)
        pattern.days = pattern.days.map(CalendarPattern.normalizedChain)
        pattern.hours = pattern.hours.map(CalendarPattern.normalizedChain)
        pattern.minutes = pattern.minutes.map(CalendarPattern.normalizedChain)
        pattern.seconds = pattern.seconds.map(CalendarPattern.normalizedChain)
    }

    private static func fullYear(_ year: Int) -> Int {
        switch year {
        case 0..<70: year + 2000
        case 70..<100: year + 1900
        default: year
        }
    }

    /// systemd's `chain_valid()`, with a reason: values in range, and every range or
    /// repetition able to produce at least one value after its start.
    private func validate(
        _ chain: [CalendarPattern.Component]?, _ field: String, _ range: ClosedRange<Int>, endOfMonth: Bool = false
    ) throws(ScheduleError) {
        // `~` days may be at most 28 back, so that they exist in every month.
        let upper = endOfMonth ? range.upperBound - 3 : range.upperBound
        let prefix = endOfMonth ? "~" : ""
        let bounds = "\(prefix)\(range.lowerBound)–\(prefix)\(upper)"
        for component in chain ?? [] {
            var text = "\(prefix)\(component.start)"
            if let stop = component.stop { text += "..\(stop)" }
            if component.step > 0 && component.stop == nil || component.step > 1 { text += "/\(component.step)" }
            func fail(_ why: String) -> ScheduleError {
                ScheduleError(field: .on, value: text, reason: "\(expression): \(field) \(why)")
            }
            guard (range.lowerBound...upper).contains(component.start) else {
                throw fail("\(prefix)\(component.start) out of range \(bounds)")
            }
            guard component.step <= upper - range.lowerBound else {
                throw fail("\(text): repetition /\(component.step) is longer than the range \(bounds)")
            }
            if let stop = component.stop {
                // systemd checks the stop after trimming it to a value the repetition reaches.
                let reached = stop > component.start && component.step > 0 ? stop - (stop - component.start) % component.step : stop
                guard (range.lowerBound...upper).contains(reached) else { throw fail("\(prefix)\(stop) out of range \(bounds)") }
                guard component.start + component.step <= stop else { throw fail("range \(text) is empty or runs backwards") }
            } else if endOfMonth {
                guard component.start - component.step >= range.lowerBound else { throw fail("\(text) never repeats within \(bounds)") }
            } else {
                guard component.start + component.step <= upper else { throw fail("\(text) never repeats within \(bounds)") }
            }
        }
    }

    // MARK: Scanning

    private func peek(_ offset: Int = 0) -> Character? {
        position + offset < characters.count ? characters[position + offset] : nil
    }

    private mutating func consume(_ character: Character) -> Bool {
        guard peek() == character else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ character: Character) throws(ScheduleError) {
        guard consume(character) else {
            if let other = peek() { throw unexpected(other) }
            throw incomplete()
        }
    }

    private mutating func skipSpaces() {
        while peek() == " " { position += 1 }
    }

    private func unexpected(_ character: Character) -> ScheduleError {
        let before = String(characters[..<position])
        let context = before.isEmpty ? "at the start" : "after '\(before)'"
        return ScheduleError(
            field: .on, value: expression, reason: "\(expression) is not a calendar expression: unexpected '\(character)' \(context)")
    }

    private func incomplete() -> ScheduleError {
        ScheduleError(field: .on, value: expression, reason: "\(expression) is not a calendar expression: it ends too early")
    }
}
