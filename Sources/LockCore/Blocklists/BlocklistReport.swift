/// What a blocklist parser made of its input: how many rules became names, how many lines were
/// comments, and every skipped rule counted by reason with a few examples.
public struct BlocklistReport: Sendable, Equatable, Codable {
    /// A skipped rule as it appeared (shortened, control bytes escaped).
    public struct Example: Sendable, Equatable, Codable, CustomStringConvertible {
        /// 1-based line number.
        public var line: Int
        /// The rule or line, at most `BlocklistReport.exampleLength` characters.
        public var text: String

        /// Creates an example.
        public init(line: Int, text: String) {
            self.line = line
            self.text = text
        }

        public var description: String { "line \(line): \(text)" }
    }

    /// Lines read (a final line without newline counts).
    public var lines = 0
    /// Names to block, as emitted (before de-duplication by whoever collects them).
    public var blocked = 0
    /// Exception names (`@@||domain^`), as emitted.
    public var allowed = 0
    /// Comments, headers (`[Adblock Plus 2.0]`) and blank lines.
    public var comments = 0
    /// Rules that could not be used, by reason. A hosts line with several names counts each
    /// name it could not use.
    public var skipped: [BlocklistSkipReason: Int] = [:]
    /// Up to a few examples per reason, the first ones met.
    public var examples: [BlocklistSkipReason: [Example]] = [:]

    /// The longest example text kept.
    public static let exampleLength = 100

    /// Creates an empty report.
    public init() {}

    /// Every skipped rule, whatever the reason.
    public var skippedTotal: Int { skipped.values.reduce(0, +) }

    /// One line per reason, most frequent first, with its examples: for `lockctl lists import`.
    public var summary: [String] {
        skipped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }.map { reason, count in
            let shown = (examples[reason] ?? []).map { "\"\($0.text)\" (line \($0.line))" }.joined(separator: ", ")
            return "\(count) skipped: \(reason.explanation)" + (shown.isEmpty ? "" : ", e.g. \(shown)")
        }
    }
}
