/// A hosts file split into the user's bytes and the section this project manages, and the
/// rendering of a new file around a new section.
///
/// Everything outside the section is kept byte for byte: comments, tabs, CRLF line ends, a
/// missing final newline, bytes that are not UTF-8, and the user's own entries for names we
/// also block. Rendering is a pure function of (user bytes, names), so applying the same state
/// twice yields the same file, and removing the section restores the original exactly.
///
/// Parsing rules, chosen so that tampering never turns our lines into the user's (they would
/// keep blocking after the block ends) and never costs the user a line:
/// - A marker is a line reading `# BEGIN simplylock` or `# END simplylock` once blanks
///   (spaces, tabs, CR) are folded; `#` may touch the word, case is ignored. Markers are ours
///   wherever they stand and are always dropped, and so is our comment line.
/// - A BEGIN followed by an END, with no other marker in between, encloses a section: every
///   line between them is ours, whatever it says (a note inserted there, an edited entry).
/// - Any other marker is stray (a second END, a duplicated BEGIN, a BEGIN or END whose partner
///   was deleted). Lines of the exact shape we write — `0.0.0.0` or `::`, then each name
///   followed by its trailing-dot form, single spaces (a name too long to share a line with
///   its dot form stands alone) — are ours when they stand between a
///   stray marker and its neighbouring markers (or the start or end of the file), or touch
///   another line of ours; every other line is the user's.
/// - With `knownUser` (the user's part the last time the file was sane), lines of our shape
///   are ours wherever they stand outside a section (this catches `sed -i '/simplylock/d'`,
///   which deletes both markers and our comment), and any line of ours that the known user
///   part has and the file's user part now lacks goes back to the user (a marker moved
///   across the user's lines).
/// - With `ownNames`, a line of our shape is ours only if every name on it is one of them or
///   is listed inside a section, so a user's own `0.0.0.0 x.com x.com.` for a name we never
///   block always stays theirs.
/// - Everything else is the user's, byte for byte.
public struct HostsDocument: Sendable, Equatable {
    /// The first line of the managed section.
    public static let beginMarker = "# BEGIN simplylock"
    /// The last line of the managed section.
    public static let endMarker = "# END simplylock"
    /// The longest line of the section, line end included. musl reads hosts lines with
    /// `fgets` into a 512-byte buffer: bytes past 511 become a new "line" whose names are
    /// never matched, and a name must be followed by a blank inside the buffer to match.
    public static let maxLineBytes = 511
    /// The longest name a resolver accepts (RFC 1035, in text form without the final dot).
    public static let maxNameLength = 253
    static let commentPrefix = "# Managed by simplylockd"

    /// The file without any managed section.
    public private(set) var userBytes: [UInt8]
    /// Where the section stood (or goes, at the end when there was none), as an offset into
    /// `userBytes`.
    public private(set) var sectionOffset: Int
    /// True when the file had at least one managed section, a stray marker, or lines of ours.
    public private(set) var hadSection: Bool
    /// True when the file had anything but zero or one intact section: stray markers, several
    /// sections, or lines of ours outside a section. Such a file is rebuilt, never adopted.
    public private(set) var isDamaged: Bool
    /// The names listed in the managed lines found, in file order, without repeats and
    /// without their trailing-dot forms.
    public private(set) var listedNames: [String]

    /// Splits `bytes` into user content and managed lines by the rules above. `knownUser` is
    /// the user's part from the last sane reading and `ownNames` tells the names we may have
    /// written, when the caller knows them and expects a section to be there. A predicate, not
    /// a set: the caller's names can be a block's hundred thousand, already kept sorted.
    public init(bytes: [UInt8], knownUser: [UInt8]? = nil, ownNames: ((String) -> Bool)? = nil) {
        let lines = HostsDocument.splitLines(bytes)
        var kinds = [LineKind](repeating: .other, count: lines.count)
        var markers: [Int] = []
        for (index, line) in lines.enumerated() {
            if let marker = HostsDocument.marker(bytes[line.content]) {
                kinds[index] = marker
                markers.append(index)
            }
        }

        // Pair each BEGIN with an END that directly follows it among the markers.
        var owned = [Bool](repeating: false, count: lines.count)
        var interior = [Bool](repeating: false, count: lines.count)
        var stray = [Bool](repeating: false, count: markers.count)
        var inPair = [Bool](repeating: false, count: markers.count + 1)  // gap k lies before markers[k]
        var pairs = 0
        var k = 0
        while k < markers.count {
            owned[markers[k]] = true
            if kinds[markers[k]] == .begin, k + 1 < markers.count, kinds[markers[k + 1]] == .end {
                owned[markers[k + 1]] = true
                for index in (markers[k] + 1)..<markers[k + 1] {
                    owned[index] = true
                    interior[index] = true
                }
                inPair[k + 1] = true
                pairs += 1
                k += 2
            } else {
                stray[k] = true
                k += 1
            }
        }
        let strays = stray.filter { $0 }.count

        // Lines of our shape, and whether their names may be ours.
        var sectionNames = Set<String>()
        if ownNames != nil {
            for index in lines.indices where interior[index] {
                sectionNames.formUnion(HostsDocument.names(in: bytes[lines[index].content]))
            }
        }
        let shaped = lines.indices.map { index in
            !owned[index] && HostsDocument.hasOwnShape(bytes[lines[index].content])
                && (ownNames.map { isOwn in
                    HostsDocument.names(in: bytes[lines[index].content]).allSatisfy { sectionNames.contains($0) || isOwn($0) }
                } ?? true)
        }
        for index in lines.indices where !owned[index] && bytes[lines[index].content].starts(with: HostsDocument.commentPrefix.utf8) {
            owned[index] = true
        }
        // Stretches between neighbouring markers (and before the first and after the last)
        // that are not a section's inside: which of them may hold lines of ours?
        for gap in 0...markers.count where !inPair[gap] {
            let start = gap == 0 ? 0 : markers[gap - 1] + 1
            let end = gap == markers.count ? lines.count : markers[gap]
            guard start < end else { continue }
            let nextToStray = (gap > 0 && stray[gap - 1]) || (gap < markers.count && stray[gap])
            guard knownUser != nil || nextToStray else { continue }
            for index in start..<end where shaped[index] { owned[index] = true }
        }
        // Lines of our shape touching a line of ours belong with it: a marker moved into the
        // middle of the section, or our comment left without markers.
        for index in lines.indices.dropFirst() where shaped[index] && owned[index - 1] { owned[index] = true }
        for index in lines.indices.dropLast().reversed() where shaped[index] && owned[index + 1] { owned[index] = true }
        // The user's own lines found among ours go back to the user: as many of each as the
        // user's part had and now lacks.
        var givenBackFromSection = false
        let ours = lines.indices.filter { owned[$0] && kinds[$0] == .other }
        if let knownUser, !ours.isEmpty {
            // Counted only for contents that matter, compared only at lengths that can match:
            // the user's part may have a hundred thousand lines, the section a few dozen.
            let lengths = Set(ours.map { lines[$0].content.count })
            var missing: [ArraySlice<UInt8>: Int] = [:]
            for index in ours { missing[bytes[lines[index].content]] = 0 }
            for line in HostsDocument.splitLines(knownUser) where lengths.contains(line.content.count) {
                let content = knownUser[line.content]
                if let count = missing[content] { missing[content] = count + 1 }
            }
            for index in lines.indices where !owned[index] && lengths.contains(lines[index].content.count) {
                let content = bytes[lines[index].content]
                if let count = missing[content] { missing[content] = count - 1 }
            }
            for index in ours {
                let content = bytes[lines[index].content]
                guard let count = missing[content], count > 0 else { continue }
                missing[content] = count - 1
                owned[index] = false
                if interior[index] { givenBackFromSection = true }
            }
        }
        let outside = lines.indices.contains { owned[$0] && !interior[$0] && kinds[$0] == .other }

        // The section is rebuilt where the first intact one stood, else where the first line of
        // ours did.
        let anchor =
            (0..<markers.count).first { k in !stray[k] && kinds[markers[k]] == .begin }.map { markers[$0] }
            ?? owned.firstIndex(of: true)
        // Not reserved at the file's size: the user's part is kept for as long as the daemon
        // runs, and beside a 100 000-name section it is usually a few lines.
        var kept: [UInt8] = []
        var offset: Int?
        var listed: [String] = []
        var seen = Set<String>()
        for (index, line) in lines.enumerated() {
            if index == anchor { offset = kept.count }
            guard owned[index] else {
                kept += bytes[line.content]
                kept += bytes[line.terminator]
                continue
            }
            for name in HostsDocument.names(in: bytes[line.content]) where seen.insert(name).inserted {
                listed.append(name)
            }
        }
        // A section written after a last line without a newline brought that newline with
        // it, and ends without one; give the newline back when the section goes away.
        if let last = lines.last, owned[lines.count - 1], last.terminator.isEmpty, kept.last == UInt8(ascii: "\n") {
            kept.removeLast()
            // The newline we added was CRLF only if the file used CRLF before it.
            if kept.last == UInt8(ascii: "\r"), HostsDocument.containsCRLF(kept.dropLast()) { kept.removeLast() }
        }
        userBytes = kept
        sectionOffset = min(offset ?? kept.count, kept.count)
        hadSection = owned.contains(true)
        isDamaged = strays > 0 || pairs > 1 || outside || givenBackFromSection
        listedNames = listed
    }

    /// A document whose user part is `userBytes`, with the section going at `sectionOffset`
    /// (the end when nil or not at the start of a line).
    public init(userBytes: [UInt8], sectionOffset: Int? = nil) {
        self.userBytes = userBytes
        if let offset = sectionOffset, offset >= 0, offset <= userBytes.count,
            offset == 0 || userBytes[offset - 1] == UInt8(ascii: "\n")
        {
            self.sectionOffset = offset
        } else {
            self.sectionOffset = userBytes.count
        }
        hadSection = false
        isDamaged = false
        listedNames = []
    }

    /// The whole file with a section listing `names` (or with no section at all when `names`
    /// is empty). Each name gets `0.0.0.0` and `::` entries, each in its plain and its
    /// trailing-dot form (`reddit.com.`, which glibc and musl compare literally); names are
    /// packed as many to a line as fit in `maxLineBytes`. Names a resolver would refuse
    /// (longer than 253 characters, blanks, `#`) are left out.
    public func rendered(names: some Sequence<String>) -> [UInt8] {
        let listed = HostsDocument.listable(names)
        guard !listed.isEmpty else { return userBytes }
        let eol: [UInt8] = usesCRLF ? [13, 10] : [10]
        let before = userBytes[..<sectionOffset]
        let after = userBytes[sectionOffset...]
        // The file is written into one buffer reserved at about its size: a 20 000-name section
        // grown by doubling, then copied between the user's parts, took three times its size.
        var file: [UInt8] = []
        let names = listed.reduce(0) { $0 + 2 * $1.utf8.count + 4 }
        file.reserveCapacity(userBytes.count + 2 * names + 2 * names / 400 * (eol.count + 8) + 256)
        file += before
        // The user's last line has no newline: ours goes in front and the file keeps ending
        // without one, so that taking the section out restores it exactly.
        let endsWithoutNewline = after.isEmpty && before.last.map { $0 != UInt8(ascii: "\n") } == true
        if endsWithoutNewline { file += eol }
        file += HostsDocument.beginMarker.utf8
        file += eol
        file += "\(HostsDocument.commentPrefix): edits inside this section are undone. \(listed.count) names.".utf8
        file += eol
        for address in ["0.0.0.0", "::"] {
            var lineStart = file.count
            var lineHasNames = false
            func startLine() {
                lineStart = file.count
                file += address.utf8
            }
            startLine()
            for name in listed {
                let length = name.utf8.count
                guard HostsDocument.pairFits(address: address.utf8.count, name: length) else {
                    // Too long to share a line with its trailing-dot form: each on a line alone.
                    if lineHasNames {
                        file += eol
                    } else {
                        file.removeLast(file.count - lineStart)
                    }
                    file += (address + " " + name).utf8
                    file += eol
                    file += (address + " " + name + ".").utf8
                    file += eol
                    startLine()
                    lineHasNames = false
                    continue
                }
                if lineHasNames, file.count - lineStart + 2 * length + 3 + eol.count > HostsDocument.maxLineBytes {
                    file += eol
                    startLine()
                }
                file.append(UInt8(ascii: " "))
                file += name.utf8
                file.append(UInt8(ascii: " "))
                file += name.utf8
                file.append(UInt8(ascii: "."))
                lineHasNames = true
            }
            if lineHasNames {
                file += eol
            } else {
                file.removeLast(file.count - lineStart)
            }
        }
        file += HostsDocument.endMarker.utf8
        if !endsWithoutNewline {
            file += eol
            file += after
        }
        return file
    }

    /// True when the user's part uses CRLF line ends (judged by its first line end).
    public var usesCRLF: Bool {
        guard let newline = userBytes.firstIndex(of: UInt8(ascii: "\n")) else { return false }
        return newline > 0 && userBytes[newline - 1] == UInt8(ascii: "\r")
    }

    /// True when `bytes` holds nothing but blanks and line ends: a file truncated or emptied.
    public static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C }
    }

    /// The names as they go into the section: without a final dot, without repeats, only
    /// those a resolver can look up (1…253 printable ASCII characters other than `#`).
    public static func listable(_ names: some Sequence<String>) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for raw in names {
            let name = raw.hasSuffix(".") ? String(raw.dropLast()) : raw
            let utf8 = name.utf8
            guard !utf8.isEmpty, utf8.count <= maxNameLength,
                utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }),
                seen.insert(name).inserted
            else { continue }
            result.append(name)
        }
        return result
    }

    private static func containsCRLF(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return false }
        return newline > bytes.startIndex && bytes[newline - 1] == UInt8(ascii: "\r")
    }

    private enum LineKind { case begin, end, other }

    private struct Line {
        var content: Range<Int>
        var terminator: Range<Int>
    }

    private static func splitLines(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        bytes.withUnsafeBufferPointer { buffer in
            while start < buffer.count {
                guard let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) else { break }
                let contentEnd = newline > start && buffer[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
                lines.append(Line(content: start..<contentEnd, terminator: contentEnd..<(newline + 1)))
                start = newline + 1
            }
        }
        if start < bytes.count { lines.append(Line(content: start..<bytes.count, terminator: bytes.count..<bytes.count)) }
        return lines
    }

    /// BEGIN or END when `line` is a marker: `#`, then `begin`/`end` and `simplylock` in any
    /// case, separated and surrounded by any blanks.
    private static func marker(_ line: ArraySlice<UInt8>) -> LineKind? {
        guard line.count < 64 else { return nil }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C }
        guard line.first(where: { !isBlank($0) }) == UInt8(ascii: "#") else { return nil }
        let words = line.split(whereSeparator: isBlank)
        guard let first = words.first, first.first == UInt8(ascii: "#") else { return nil }
        var rest = words.dropFirst().map { String(decoding: $0, as: UTF8.self).lowercased() }
        if first.count > 1 { rest.insert(String(decoding: first.dropFirst(), as: UTF8.self).lowercased(), at: 0) }
        guard rest.count == 2, rest[1] == "simplylock" else { return nil }
        return rest[0] == "begin" ? .begin : rest[0] == "end" ? .end : nil
    }

    /// True when `ADDRESS NAME NAME.` and a CRLF fit in `maxLineBytes`. Longer names (from
    /// about 248 characters) get a line for each form.
    static func pairFits(address: Int, name: Int) -> Bool { address + 2 * name + 5 <= maxLineBytes }

    /// True for the lines `rendered` writes between the markers: our comment, and an address
    /// followed by names each directly followed by its trailing-dot form, single spaces (or
    /// one name alone, plain or dotted, when it is too long for the pair to fit).
    static func hasOwnShape(_ line: ArraySlice<UInt8>) -> Bool {
        if line.starts(with: commentPrefix.utf8) { return true }
        // Every line of ours ends with a dotted name, or is a long name alone; most lines of a
        // big hosts file are neither, and are turned away before anything is split.
        guard line.last == UInt8(ascii: ".") || line.count > 250,
            line.first == UInt8(ascii: "0") || line.first == UInt8(ascii: ":")
        else { return false }
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[0].elementsEqual("0.0.0.0".utf8) || fields[0].elementsEqual("::".utf8) else { return false }
        if fields.count == 2 {
            let name = fields[1].last == UInt8(ascii: ".") ? fields[1].dropLast() : fields[1]
            return !name.isEmpty && name.last != UInt8(ascii: ".") && !pairFits(address: fields[0].count, name: name.count)
                && !name.contains(where: { $0 == 0x09 || $0 == 0x0D || $0 == UInt8(ascii: "#") })
        }
        guard fields.count % 2 == 1 else { return false }
        var index = 1
        while index < fields.count {
            let name = fields[index], dotted = fields[index + 1]
            guard !name.isEmpty, name.last != UInt8(ascii: "."), dotted.count == name.count + 1,
                dotted.last == UInt8(ascii: "."), dotted.dropLast().elementsEqual(name),
                !name.contains(where: { $0 == 0x09 || $0 == 0x0D || $0 == UInt8(ascii: "#") })
            else { return false }
            index += 2
        }
        return true
    }

    private static func names(in line: ArraySlice<UInt8>) -> [String] {
        let fields = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
        guard let address = fields.first, address.elementsEqual("0.0.0.0".utf8) || address.elementsEqual("::".utf8) else { return [] }
        return fields.dropFirst().prefix { $0.first != UInt8(ascii: "#") }.map { field in
            String(decoding: field.last == UInt8(ascii: ".") ? field.dropLast() : field, as: UTF8.self)
        }.filter { !$0.isEmpty }
    }
}
