import CSystemd
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The systemd journal's structured entries, written with `sd_journal_sendv(3)`.
///
/// Every entry carries `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`,
/// `CODE_FUNC`, `SIMPLYLOCK_LEVEL` and `SIMPLYLOCK_LOGGER`, and every metadata key as an
/// upper-cased `SIMPLYLOCK_…` field (`profile` → `SIMPLYLOCK_PROFILE`), so that
/// `journalctl -u simplylockd SIMPLYLOCK_PROFILE=deep-work` finds the entries for one profile.
///
/// The variadic `sd_journal_send` cannot be called from Swift, hence the iovec form.
/// `sd_journal_sendv` ignores a missing socket (ENOENT), which is why
/// ``LoggingBootstrap/detectDestination()`` checks for it before choosing the journal.
public enum JournalEntry {
    /// The prefix of every field derived from metadata.
    public static let metadataFieldPrefix = "SIMPLYLOCK_"

    /// Builds the `FIELD=value` strings of one journal entry, in a stable order.
    ///
    /// Kept pure (no I/O) so that the encoding can be tested without a journal.
    /// - Parameters:
    ///   - event: The event; its own `metadata` is ignored in favour of `metadata`.
    ///   - metadata: The effective metadata (handler, provider and event merged).
    ///   - identifier: The `SYSLOG_IDENTIFIER`.
    ///   - label: The logger label.
    /// - Returns: The fields, fixed ones first, then metadata fields sorted by name.
    public static func fields(for event: LogEvent, metadata: Logger.Metadata, identifier: String, label: String) -> [String] {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(event.level.syslogPriority)",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
            "SIMPLYLOCK_LEVEL=\(event.level)",
            "SIMPLYLOCK_LOGGER=\(label)",
        ]
        let metadataFields =
            metadata
            .map { key, value in (fieldName(forMetadataKey: key), "\(value)") }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        for (name, value) in metadataFields where name != "SIMPLYLOCK_LEVEL" && name != "SIMPLYLOCK_LOGGER" {
            fields.append("\(name)=\(value)")
        }
        return fields
    }

    /// Maps a swift-log metadata key to a valid journal field name.
    ///
    /// Journal field names may only contain `A`–`Z`, `0`–`9` and `_`, must not start with `_`
    /// (reserved for trusted fields) or a digit, and are at most 64 bytes long; anything else
    /// is silently dropped by journald. Letters are upper-cased, every other character becomes
    /// `_`, the ``metadataFieldPrefix`` keeps the name valid and ours, and the result is cut at
    /// 64 bytes.
    public static func fieldName(forMetadataKey key: String) -> String {
        var name = metadataFieldPrefix
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z":
                name.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            case "A"..."Z", "0"..."9", "_":
                name.unicodeScalars.append(scalar)
            default:
                name.unicodeScalars.append("_")
            }
        }
        return String(name.utf8.prefix(64))!
    }

    /// Passes the fields to `sd_journal_sendv` as one iovec each, backed by one buffer.
    /// - Returns: The result of `sd_journal_sendv`: 0 on success, a negative errno on failure.
    static func send(_ fields: [String]) -> CInt {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(fields.reduce(0) { $0 + $1.utf8.count })
        var spans: [(offset: Int, length: Int)] = []
        spans.reserveCapacity(fields.count)
        for field in fields {
            spans.append((buffer.count, field.utf8.count))
            buffer.append(contentsOf: field.utf8)
        }
        return buffer.withUnsafeMutableBytes { raw -> CInt in
            guard let base = raw.baseAddress else { return -EINVAL }
            var vectors = spans.map { iovec(iov_base: base + $0.offset, iov_len: $0.length) }
            return sd_journal_sendv(&vectors, CInt(vectors.count))
        }
    }
}
