import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plain log lines on standard error, one per entry:
///
///     2026-11-22T10:00:00Z warning simplylockd: hosts file changed externally origin=manual profile=deep-work
///
/// Used when stderr is not the journal (started by hand, in a container, under another
/// supervisor). Metadata follows as `key=value` pairs sorted by key; values with spaces, quotes,
/// `=` or control characters are quoted, and newlines are escaped so that an entry stays on
/// one line.
public enum StderrLine {

    /// Formats one line, newline included. Pure, for tests and for the journal handler's fallback.
    /// - Parameters:
    ///   - secondsSinceEpoch: The wall-clock time of the entry (UTC is printed).
    ///   - level: The entry's level.
    ///   - identifier: The program name.
    ///   - message: The message; newlines are escaped as `\n`.
    ///   - metadata: Printed as sorted `key=value` pairs.
    public static func formatLine(
        secondsSinceEpoch: Int, level: Logger.Level, identifier: String, message: String, metadata: Logger.Metadata
    ) -> String {
        var line = "\(timestamp(secondsSinceEpoch: secondsSinceEpoch)) \(level) \(identifier): \(escaped(message))"
        for key in metadata.keys.sorted() {
            line += " \(key)=\(quotedIfNeeded("\(metadata[key]!)"))"
        }
        line += "\n"
        return line
    }

    /// Formats a time as RFC 3339 UTC with second precision, e.g. `2026-11-22T10:00:00Z`.
    public static func timestamp(secondsSinceEpoch: Int) -> String {
        var seconds = time_t(secondsSinceEpoch)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))Z"
    }

    /// Writes a complete line with as few `write(2)` calls as possible, so that lines from
    /// concurrent loggers do not interleave (one call for lines up to `PIPE_BUF`).
    static func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // nowhere left to report a failing stderr
                }
                offset += written
            }
        }
    }

    /// Escapes backslashes and control characters so that a message stays on one line, and
    /// double quotes too when the result goes between quotes.
    static func escaped(_ text: String, quote: Bool = false) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": result += "\\\\"
            case "\"" where quote: result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where character.value < 0x20 || character.value == 0x7f:
                result += "\\u{\(String(character.value, radix: 16))}"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// Quotes a metadata value when it would otherwise be ambiguous in `key=value` form.
    static func quotedIfNeeded(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.unicodeScalars.contains {
                $0 == " " || $0 == "\"" || $0 == "=" || $0.value < 0x20 || $0.value == 0x7f
            }
        guard needsQuotes else { return escaped(value) }
        return "\"" + escaped(value, quote: true) + "\""
    }
}
