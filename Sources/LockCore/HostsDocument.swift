/// A hosts file split into the user's bytes and the section this project manages, and the
/// rendering of a new file around a new section.
///
/// Everything outside the section is kept byte for byte: comments, tabs, CRLF line ends, a
/// missing final newline, bytes that are not UTF-8, and the user's own entries for names we
/// also block. Rendering is a pure function of (user bytes, names), so applying the same state
/// twice yields the same file, and removing the section restores the original exactly.
public struct HostsDocument: Sendable, Equatable {
    /// The first line of the managed section.
    public static let beginMarker = "# BEGIN simplylock"
    /// The last line of the managed section.
    public static let endMarker = "# END simplylock"
    /// How many names go on one line. Lookups scan the file line by line, so fewer, longer
    /// lines are much cheaper than one name per line (see ARCHITECTURE.md, Enforcement).
    public static let namesPerLine = 50

    /// The file without any managed section.
    public private(set) var userBytes: [UInt8]
    /// Where the section stood (or goes, at the end when there was none), as an offset into
    /// `userBytes`.
    public private(set) var sectionOffset: Int
    /// True when the file had at least one managed section (or a stray marker).
    public private(set) var hadSection: Bool
    /// The names listed in the managed sections found, in file order, without repeats.
    public private(set) var listedNames: [String]

    /// Splits `bytes` into user content and managed sections. Hostile inputs are handled
    /// conservatively: every complete section is removed; a BEGIN without an END takes only
    /// the lines that look like ours; a stray END marker is dropped.
    public init(bytes: [UInt8]) {
        let lines = HostsDocument.splitLines(bytes)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var offset: Int? = nil
        var names: [String] = []
        var seen = Set<String>()
        var index = 0
        var found = false

        while index < lines.count {
            let line = lines[index]
            let text = HostsDocument.markerText(bytes[line.content])
            if text == HostsDocument.endMarker {
                found = true
                index += 1
                continue
            }
            guard text == HostsDocument.beginMarker else {
                kept += bytes[line.content]
                kept += bytes[line.terminator]
                index += 1
                continue
            }
            found = true
            // Find the end of this section: an END marker, or else the last line that looks
            // like ours, so that a damaged section never swallows the user's lines.
            var last = index
            var cursor = index + 1
            var closed = false
            while cursor < lines.count {
                let inner = bytes[lines[cursor].content]
                let innerText = HostsDocument.markerText(inner)
                if innerText == HostsDocument.endMarker { last = cursor; closed = true; break }
                if innerText == HostsDocument.beginMarker { break }
                guard HostsDocument.looksManaged(inner) else { break }
                last = cursor
                cursor += 1
            }
            if !closed {
                // Without an END marker only contiguous lines of our own shape are ours.
                cursor = index + 1
                last = index
                while cursor < lines.count, HostsDocument.looksManaged(bytes[lines[cursor].content]) {
                    last = cursor
                    cursor += 1
                }
            }
            for lineIndex in (index + 1)...max(index + 1, last) where lineIndex <= last {
                for name in HostsDocument.names(in: bytes[lines[lineIndex].content]) where seen.insert(name).inserted {
                    names.append(name)
                }
            }
            // A section written after a last line without a newline brought that newline with
            // it, and ends without one; give the newline back when the section goes away.
            let sectionIsLast = last == lines.count - 1
            if sectionIsLast, lines[last].terminator.isEmpty, kept.last == UInt8(ascii: "\n") {
                kept.removeLast()
                // The newline we added was CRLF only if the file used CRLF before it.
                if kept.last == UInt8(ascii: "\r"), HostsDocument.containsCRLF(kept.dropLast()) { kept.removeLast() }
            }
            if offset == nil { offset = kept.count }
            index = last + 1
        }
        userBytes = kept
        sectionOffset = min(offset ?? kept.count, kept.count)
        hadSection = found
        listedNames = names
    }

    /// The whole file with a section listing `names` (or with no section at all when `names`
    /// is empty). Each name gets an IPv4 `0.0.0.0` and an IPv6 `::` entry.
    public func rendered(names: [String]) -> [UInt8] {
        guard !names.isEmpty else { return userBytes }
        let eol: [UInt8] = usesCRLF ? [13, 10] : [10]
        var section: [UInt8] = Array(HostsDocument.beginMarker.utf8) + eol
        section += Array("# Managed by simplylockd: edits inside this section are undone. \(names.count) names.".utf8) + eol
        for address in ["0.0.0.0", "::"] {
            var start = 0
            while start < names.count {
                let chunk = names[start..<min(start + HostsDocument.namesPerLine, names.count)]
                section += Array((address + " " + chunk.joined(separator: " ")).utf8) + eol
                start += HostsDocument.namesPerLine
            }
        }
        section += Array(HostsDocument.endMarker.utf8)

        let before = userBytes[..<sectionOffset]
        let after = userBytes[sectionOffset...]
        if after.isEmpty, let lastByte = before.last, lastByte != UInt8(ascii: "\n") {
            // The user's last line has no newline: ours goes in front and the file keeps
            // ending without one, so that taking the section out restores it exactly.
            return Array(before) + eol + section
        }
        return Array(before) + section + eol + Array(after)
    }

    /// True when the user's part uses CRLF line ends (judged by its first line end).
    public var usesCRLF: Bool {
        guard let newline = userBytes.firstIndex(of: UInt8(ascii: "\n")) else { return false }
        return newline > 0 && userBytes[newline - 1] == UInt8(ascii: "\r")
    }

    private static func containsCRLF(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return false }
        return newline > bytes.startIndex && bytes[newline - 1] == UInt8(ascii: "\r")
    }

    private struct Line {
        var content: Range<Int>
        var terminator: Range<Int>
    }

    private static func splitLines(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                let contentEnd = index > start && bytes[index - 1] == UInt8(ascii: "\r") ? index - 1 : index
                lines.append(Line(content: start..<contentEnd, terminator: contentEnd..<(index + 1)))
                start = index + 1
            }
            index += 1
        }
        if start < bytes.count { lines.append(Line(content: start..<bytes.count, terminator: bytes.count..<bytes.count)) }
        return lines
    }

    /// A line reduced to a canonical marker form: `#`, one space, the rest with runs of blanks
    /// folded, so `#\tBEGIN  simplylock ` still counts as a marker.
    private static func markerText(_ line: ArraySlice<UInt8>) -> String? {
        guard line.count < 64 else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = words.first else { return nil }
        var parts = words.map(String.init)
        if first != "#" {
            guard first.hasPrefix("#") else { return nil }
            parts[0] = String(first.dropFirst())
            parts.insert("#", at: 0)
        }
        return parts.joined(separator: " ")
    }

    private static func looksManaged(_ line: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: line, as: UTF8.self)
        return text.hasPrefix("0.0.0.0 ") || text.hasPrefix(":: ") || text.hasPrefix("# Managed by simplylockd")
    }

    private static func names(in line: ArraySlice<UInt8>) -> [String] {
        let fields = String(decoding: line, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let address = fields.first, address == "0.0.0.0" || address == "::" else { return [] }
        return fields.dropFirst().map(String.init)
    }
}
