/// Reads blocklists as they come, chunk by chunk, and emits the names they block: hosts files
/// (`0.0.0.0 name [aliases]`, `127.0.0.1 …`, `::`), plain lists of domains, and AdBlock network
/// rules `||domain^` (block) and `@@||domain^` (exception), mixed freely.
///
/// Comments (`#`, `!`), headers (`[Adblock Plus 2.0]`), blank lines, CRLF, upper case and
/// trailing dots are handled; names are normalised by the injected `normalize` closure (IDN →
/// punycode). Every other rule is counted under a `BlocklistSkipReason` with a few examples in
/// the `report`, never dropped silently. Memory stays bounded whatever the input: a line longer
/// than `maximumLineLength` is skipped without being kept.
public struct BlocklistParser {
    /// The report so far; complete after `finish`.
    public private(set) var report = BlocklistReport()

    private let normalize: (String) -> String?
    private let refuse: ((String) -> BlocklistSkipReason?)?
    private let maximumLineLength: Int
    private let examplesPerReason: Int
    private var line: [UInt8] = []
    private var lineTooLong = false
    private var lineNumber = 0

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - maximumLineLength: longer lines are counted as `tooLong`.
    ///   - examplesPerReason: examples kept per skip reason.
    ///   - normalize: turns a name as written into its normalised form, or nil when it is not a
    ///     valid domain name. Plain lowercase ASCII names skip it (they are their own normal form).
    ///   - refuse: asked about every normalised name; a reason skips it (the daemon refuses
    ///     public suffixes, which would block every site under them).
    public init(
        maximumLineLength: Int = 4096, examplesPerReason: Int = 3, normalize: @escaping (String) -> String?,
        refuse: ((String) -> BlocklistSkipReason?)? = nil
    ) {
        self.normalize = normalize
        self.refuse = refuse
        self.maximumLineLength = max(16, maximumLineLength)
        self.examplesPerReason = max(0, examplesPerReason)
        line.reserveCapacity(256)
    }

    /// Parses the next chunk of input; lines may span chunks.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer, _ emit: (BlocklistEntry) -> Void) {
        guard !bytes.isEmpty else { return }
        var start = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.count
            if newline != nil, line.isEmpty, !lineTooLong, end - start <= maximumLineLength {
                // The whole line is in this chunk: read it where it is.
                endLine(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), emit)
                start = end + 1
                continue
            }
            if !lineTooLong {
                if line.count + (end - start) > maximumLineLength {
                    // Keep the beginning for the report's example; drop the rest as it comes.
                    line.append(contentsOf: bytes[start..<min(end, start + max(0, BlocklistReport.exampleLength - line.count))])
                    lineTooLong = true
                } else {
                    line.append(contentsOf: bytes[start..<end])
                }
            }
            guard newline != nil else { break }
            endBufferedLine(emit)
            start = end + 1
        }
    }

    /// `parse` for any byte collection (a `[UInt8]`, `Data`, a string's `utf8`).
    public mutating func parse(_ bytes: some Collection<UInt8>, _ emit: (BlocklistEntry) -> Void) {
        let contiguous = bytes.withContiguousStorageIfAvailable { parse(UnsafeRawBufferPointer($0), emit) } != nil
        if !contiguous { Array(bytes).withUnsafeBytes { parse($0, emit) } }
    }

    /// Handles a last line without newline and returns the report.
    public mutating func finish(_ emit: (BlocklistEntry) -> Void) -> BlocklistReport {
        if !line.isEmpty || lineTooLong { endBufferedLine(emit) }
        line = []
        return report
    }

    /// Parses a whole list at once: the entries in order, and the report.
    public static func parse(_ bytes: some Collection<UInt8>, normalize: @escaping (String) -> String?)
        -> (entries: [BlocklistEntry], report: BlocklistReport)
    {
        var parser = BlocklistParser(normalize: normalize)
        var entries: [BlocklistEntry] = []
        parser.parse(bytes) { entries.append($0) }
        let report = parser.finish { entries.append($0) }
        return (entries, report)
    }

    // MARK: - Lines

    private mutating func endBufferedLine(_ emit: (BlocklistEntry) -> Void) {
        defer {
            line.removeAll(keepingCapacity: line.capacity <= 4096)
            lineTooLong = false
        }
        if lineTooLong {
            lineNumber += 1
            report.lines += 1
            return skip(.tooLong, BlocklistSyntax.printable(line) + "…")
        }
        line.withUnsafeBytes { endLine($0, emit) }
    }

    private mutating func endLine(_ raw: UnsafeRawBufferPointer, _ emit: (BlocklistEntry) -> Void) {
        lineNumber += 1
        report.lines += 1
        var start = 0
        var end = raw.count
        if lineNumber == 1, raw.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while end > start, BlocklistSyntax.isSpace(raw[end - 1]) { end -= 1 }
        while start < end, BlocklistSyntax.isSpace(raw[start]) { start += 1 }
        let bytes = UnsafeRawBufferPointer(rebasing: raw[start..<end])
        var ascii = true
        for byte in bytes {
            if byte < 0x20 && byte != 0x09 || byte == 0x7f { return skip(.notText, BlocklistSyntax.printable(bytes)) }
            if byte >= 0x80 { ascii = false }
        }
        if ascii, fastLine(bytes, emit) { return }
        guard let text = String(validating: bytes, as: UTF8.self) else { return skip(.notText, BlocklistSyntax.printable(bytes)) }
        parseLine(Substring(text), emit)
    }

    // MARK: - Common lines, byte by byte

    /// The shapes that make up nearly all of a large list, read without building strings for
    /// anything but the names: `0.0.0.0 name…` (and `127.0.0.1`, `::`, `::1`), a plain `name`,
    /// `||name^`, each with plain ASCII names only. Returns false, having done nothing, for any
    /// other line: the general path then decides, so both give the same result.
    private mutating func fastLine(_ bytes: UnsafeRawBufferPointer, _ emit: (BlocklistEntry) -> Void) -> Bool {
        guard let first = bytes.first, first != UInt8(ascii: "#"), first != UInt8(ascii: "!") else { return false }
        // Up to eight fields before an inline comment; more goes the general way.
        var fields: [Range<Int>] = []
        var position = 0
        while position < bytes.count {
            while position < bytes.count, BlocklistSyntax.isSpace(bytes[position]) { position += 1 }
            guard position < bytes.count else { break }
            if bytes[position] == UInt8(ascii: "#") {
                guard position > 0 else { return false }
                break
            }
            let fieldStart = position
            while position < bytes.count, !BlocklistSyntax.isSpace(bytes[position]) { position += 1 }
            fields.append(fieldStart..<position)
            if fields.count > 8 { return false }
        }
        guard !fields.isEmpty else { return false }
        var names = fields[...]
        if fields.count > 1 {
            guard Self.isSinkholeLiteral(UnsafeRawBufferPointer(rebasing: bytes[fields[0]])) else { return false }
            names = fields.dropFirst()
        } else if bytes.starts(with: [UInt8(ascii: "|"), UInt8(ascii: "|")]) {
            // AdBlock has no inline comments: anything after the rule is the general path's to judge.
            guard fields[0] == 0..<bytes.count else { return false }
            var body = fields[0].lowerBound + 2..<fields[0].upperBound
            if body.count >= 2, bytes[body.upperBound - 2] == UInt8(ascii: "^"), bytes[body.upperBound - 1] == UInt8(ascii: "|") {
                body = body.lowerBound..<body.upperBound - 2
            } else if body.count >= 1, bytes[body.upperBound - 1] == UInt8(ascii: "^") {
                body = body.lowerBound..<body.upperBound - 1
            }
            names = [body]
        }
        for field in names where !Self.isPlainName(UnsafeRawBufferPointer(rebasing: bytes[field])) { return false }
        for field in names {
            var end = field.upperBound
            while bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            let name = String(unsafeUninitializedCapacity: end - field.lowerBound) { buffer in
                for index in field.lowerBound..<end {
                    let byte = bytes[index]
                    buffer[index - field.lowerBound] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                }
                return end - field.lowerBound
            }
            if let refuse, let reason = refuse(name) {
                skip(reason, String(decoding: bytes, as: UTF8.self))
                continue
            }
            report.blocked += 1
            emit(BlocklistEntry(name: name))
        }
        return true
    }

    private static func isSinkholeLiteral(_ field: UnsafeRawBufferPointer) -> Bool {
        field.elementsEqual("0.0.0.0".utf8) || field.elementsEqual("127.0.0.1".utf8)
            || field.elementsEqual("::".utf8) || field.elementsEqual("::1".utf8)
    }

    /// What `plainASCIIName` accepts, in any letter case and with trailing dots, and not a
    /// local name: a name the normaliser would return lowercased and unchanged otherwise.
    private static func isPlainName(_ field: UnsafeRawBufferPointer) -> Bool {
        var end = field.count
        while end > 0, field[end - 1] == UInt8(ascii: ".") { end -= 1 }
        guard end > 0, end <= 253 else { return false }
        var labelLength = 0
        var labels = 1
        var previous = UInt8(ascii: ".")
        var lastLabelAllDigits = true
        for index in 0..<end {
            let byte = field[index]
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return false }
                labels += 1
                labelLength = 0
                lastLabelAllDigits = true
            } else {
                let lowered = byte &- 0x41 < 26 ? byte | 0x20 : byte
                let letter = lowered >= 0x61 && lowered <= 0x7a
                let digit = byte >= 0x30 && byte <= 0x39
                guard letter || digit || byte == UInt8(ascii: "-") else { return false }
                if labelLength == 0, byte == UInt8(ascii: "-") { return false }
                labelLength += 1
                guard labelLength <= 63 else { return false }
                if labelLength == 4, byte == UInt8(ascii: "-"), previous == UInt8(ascii: "-") { return false }
                if !digit { lastLabelAllDigits = false }
            }
            previous = byte
        }
        guard labelLength > 0, previous != UInt8(ascii: "-"), labels >= 2, !lastLabelAllDigits else { return false }
        // The last label must not be `localhost`, nor the whole a local name with a dot.
        let text = UnsafeRawBufferPointer(rebasing: field[0..<end])
        let localhost = localhostBytes
        if end >= localhost.count + 1, text[end - localhost.count - 1] == UInt8(ascii: "."),
            text[(end - localhost.count)...].elementsEqual(localhost, by: { ($0 &- 0x41 < 26 ? $0 | 0x20 : $0) == $1 })
        {
            return false
        }
        for local in localNamesWithDots where local.count == end {
            if text.elementsEqual(local, by: { ($0 &- 0x41 < 26 ? $0 | 0x20 : $0) == $1 }) { return false }
        }
        return true
    }

    private static let localhostBytes = Array("localhost".utf8)
    private static let localNamesWithDots = BlocklistSyntax.localNames.map { Array($0.utf8) }.filter { $0.contains(UInt8(ascii: ".")) }

    private mutating func parseLine(_ text: Substring, _ emit: (BlocklistEntry) -> Void) {
        guard let first = text.first else {
            report.comments += 1
            return
        }
        if first == "!" || (first == "[" && text.last == "]") {
            report.comments += 1
            return
        }
        if first == "#" {
            if BlocklistSyntax.startsCosmetic(text) { return skip(.elementHiding, text) }
            report.comments += 1
            return
        }
        if BlocklistSyntax.containsCosmetic(text) { return skip(.elementHiding, text) }
        if text.hasPrefix("@@") { return parseNetworkRule(text.dropFirst(2), whole: text, exception: true, emit) }
        if text.hasPrefix("||") { return parseNetworkRule(text, whole: text, exception: false, emit) }
        if first == "/" {
            let body = text.split(separator: "$", maxSplits: 1)[0]
            return skip(body.count > 1 && body.hasSuffix("/") ? .regex : .path, text)
        }
        if first == "|" { return skip(.path, text) }

        // Hosts or plain: an inline comment starts with `#` after blank space.
        var content = text
        if let hash = text.indices.first(where: {
            text[$0] == "#" && $0 > text.startIndex && BlocklistSyntax.isSpace(text[text.index(before: $0)])
        }) {
            content = text[..<hash]
        }
        let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let head = fields.first else {
            report.comments += 1
            return
        }
        if let address = BlocklistSyntax.address(head) {
            guard fields.count > 1 else { return skip(.address, text) }
            guard BlocklistSyntax.isSinkhole(address) else {
                for name in fields.dropFirst() {
                    skip(BlocklistSyntax.localNames.contains(name.lowercased()) ? .localName : .redirect, text)
                }
                return
            }
            for name in fields.dropFirst() { acceptName(name, line: text, exception: false, emit) }
            return
        }
        guard fields.count == 1 else { return skip(.unsupportedSyntax, text) }
        if head.contains("$") { return skip(.options, text) }
        if head.contains("/") { return skip(.path, text) }
        if head.contains("^") || head.contains("|") { return skip(.unsupportedSyntax, text) }
        acceptName(head, line: text, exception: false, emit)
    }

    /// `||domain^`, `||domain^|`, `||domain` (the `||` still in `rule` unless it is an exception
    /// whose `@@` was cut off).
    private mutating func parseNetworkRule(
        _ rule: Substring, whole: Substring, exception: Bool,
        _ emit: (BlocklistEntry) -> Void
    ) {
        guard rule.hasPrefix("||") else { return skip(exception && rule.hasPrefix("|") ? .path : .unsupportedSyntax, whole) }
        var body = rule.dropFirst(2)
        if body.contains("$") { return skip(.options, whole) }
        var tail: Substring = ""
        if let caret = body.firstIndex(of: "^") {
            tail = body[body.index(after: caret)...]
            body = body[..<caret]
        } else if body.hasSuffix("|") {
            body = body.dropLast()
        }
        guard tail.isEmpty || tail == "|" else { return skip(tail.contains("/") ? .path : .unsupportedSyntax, whole) }
        if body.contains("/") { return skip(.path, whole) }
        if body.contains(":") { return skip(.path, whole) }  // a port or scheme
        if body.contains(" ") || body.contains("\t") || body.contains("|") { return skip(.unsupportedSyntax, whole) }
        acceptName(body, line: whole, exception: exception, emit)
    }

    private mutating func acceptName(_ raw: Substring, line: Substring, exception: Bool, _ emit: (BlocklistEntry) -> Void) {
        var name = raw
        if name.hasPrefix("*.") { name = name.dropFirst(2) }
        if name.contains("*") { return skip(.wildcard, line) }
        while name.hasSuffix(".") { name = name.dropLast() }
        if name.isEmpty { return skip(.invalidName, line) }
        if BlocklistSyntax.address(name) != nil || name.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            return skip(.address, line)
        }
        let lowered = name.lowercased()
        if BlocklistSyntax.localNames.contains(lowered) { return skip(.localName, line) }
        if !name.contains(".") && !name.contains("。") && !name.contains("．") && !name.contains("｡") {
            return skip(.singleLabel, line)
        }
        guard let normalised = BlocklistSyntax.plainASCIIName(lowered) ?? normalize(String(name)) else {
            return skip(.invalidName, line)
        }
        if let refuse, let reason = refuse(normalised) { return skip(reason, line) }
        if exception { report.allowed += 1 } else { report.blocked += 1 }
        emit(BlocklistEntry(name: normalised, isException: exception))
    }

    private mutating func skip(_ reason: BlocklistSkipReason, _ text: some StringProtocol) {
        report.skipped[reason, default: 0] += 1
        if report.examples[reason, default: []].count < examplesPerReason {
            var shown = String(text)
            if shown.count > BlocklistReport.exampleLength { shown = String(shown.prefix(BlocklistReport.exampleLength - 1)) + "…" }
            report.examples[reason, default: []].append(BlocklistReport.Example(line: lineNumber, text: shown))
        }
    }
}
