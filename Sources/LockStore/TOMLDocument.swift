import CTOML
import Foundation
import LockCore
import LockNames
import TOMLKit

/// A parsed TOML file that can say where things are, so every error names file, line and
/// field. TOMLKit reports positions for syntax errors only; for fields we find the line of the
/// key (or of the offending value inside an array) in the source text.
public struct TOMLDocument {
    /// The file's path, for messages.
    public let file: String
    /// The root table; valid while this document (or a copy) exists.
    public var table: TOMLTable { tree.root }
    private let tree: Tree
    /// The source, split into lines only to find where a problem is: the lines of a 100 000-name
    /// profile took 4 MB at every read.
    private let text: String
    private var lines: [Substring] { text.split(separator: "\n", omittingEmptySubsequences: false) }

    /// Owns the parsed tree. TOMLKit 0.6.0 never frees a parsed document (its table has no
    /// deinit), which kept about 11 MB for good after each read of a 100 000-name profile;
    /// emptying the root frees every node under it when the last copy of the document goes.
    private final class Tree {
        let root: TOMLTable
        init(_ root: TOMLTable) { self.root = root }
        deinit { root.clear() }
    }

    /// Parses `text`; a syntax error becomes a `FileProblem` with TOMLKit's line.
    public init(file: String, text: String) throws(FileProblem) {
        self.file = file
        self.text = text
        // TOMLKit hands the text to toml++ as a C string, which ends at a NUL: the rest of the
        // file was dropped without a word. TOML allows no control character but tab outside
        // escapes, so each is refused with its line.
        let forbidden = { (byte: UInt8) in byte == 0x7F || (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) }
        if let (offset, byte) = text.utf8.enumerated().first(where: { forbidden($0.element) }) {
            let line = text.utf8.prefix(offset).count(where: { $0 == 0x0A }) + 1
            let code = String(byte, radix: 16, uppercase: true)
            throw FileProblem(
                file: file, line: line,
                message:
                    "contains the control character U+\(String(repeating: "0", count: 4 - code.count))\(code) (TOML allows none but tab)")
        }
        do {
            tree = Tree(try TOMLTable(string: text))
        } catch let error as TOMLParseError {
            throw FileProblem(file: file, line: error.source.begin.line, message: error.description)
        } catch {
            throw FileProblem(file: file, message: "\(error)")
        }
    }

    /// Reads and parses a file that `trust` allows to be read.
    public init(contentsOf path: String, trust: TrustedFile.Trust = .anyone) throws(FileProblem) {
        let bytes = try TrustedFile.read(path, trust: trust)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FileProblem(file: path, message: "is not UTF-8 text")
        }
        try self.init(file: path, text: text)
    }

    /// The line of a `[section]` header (1-based), or 0 for the top level.
    public func line(ofSection section: String?) -> Int? {
        guard let section else { return 0 }
        let lines = lines
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "[\(section)]" { return index + 1 }
        }
        return nil
    }

    /// The line where `key` is assigned in `section` (nil: the top level), if it can be found.
    public func line(of key: String, section: String? = nil) -> Int? {
        guard let start = line(ofSection: section) else { return nil }
        let lines = lines
        for index in start..<lines.count {
            let trimmed = lines[index].drop { $0 == " " || $0 == "\t" }
            if isTableHeader(trimmed) { return nil }
            guard trimmed.hasPrefix(key) else { continue }
            let rest = trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
            if rest.hasPrefix("=") { return index + 1 }
        }
        return nil
    }

    /// The line where `value` appears as a quoted string in `key`'s assignment (arrays may
    /// span lines), falling back to the key's line.
    public func line(of value: String, in key: String, section: String? = nil) -> Int? {
        guard let start = line(of: key, section: section) else { return nil }
        let lines = lines
        for index in (start - 1)..<lines.count {
            if index > start - 1, lines[index].contains("=") || isTableHeader(lines[index]) { break }
            if lines[index].contains("\"\(value)\"") || lines[index].contains("'\(value)'") { return index + 1 }
        }
        return start
    }

    private func isTableHeader(_ line: Substring) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("[") && !trimmed.contains("\"") && !trimmed.contains("'") && trimmed.contains("]")
    }

    /// A problem located at `key` (and `value` within it, when given).
    public func problem(_ key: String, value: String? = nil, section: String? = nil, _ message: String) -> FileProblem {
        let found =
            value.flatMap { self.line(of: $0, in: key, section: section) } ?? self.line(of: key, section: section)
            ?? self.line(ofSection: section).flatMap { $0 == 0 ? nil : $0 }
        return FileProblem(file: file, line: found, field: section.map { "\($0).\(key)" } ?? key, message: message)
    }

    /// A problem from a `FieldError`, located at its field and value.
    public func problem(_ error: FieldError, section: String? = nil) -> FileProblem {
        problem(error.field, value: error.value, section: section, error.reason)
    }

    /// The table of `section` (dotted path), or the root table for nil.
    public func table(_ section: String?) -> TOMLTable? {
        guard let section else { return table }
        var current: TOMLTable? = table
        for part in section.split(separator: ".") { current = current?[String(part)]?.table }
        return current
    }

    /// Refuses keys other than `allowed`, catching typos such as `domians` that would
    /// otherwise be silently ignored.
    public func requireOnly(_ allowed: Set<String>, section: String? = nil) throws(FileProblem) {
        for key in table(section)?.keys ?? [] where !allowed.contains(key) {
            throw problem(
                key, section: section,
                "unknown field (expected one of: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    /// A string field; nil when absent.
    public func string(_ key: String, section: String? = nil) throws(FileProblem) -> String? {
        guard let value = table(section)?[key] else { return nil }
        guard let string = value.string else { throw problem(key, section: section, "must be a string") }
        return string
    }

    /// A required string field.
    public func requiredString(_ key: String, section: String? = nil) throws(FileProblem) -> String {
        guard let string = try string(key, section: section) else {
            throw FileProblem(
                file: file, line: line(ofSection: section).flatMap { $0 == 0 ? nil : $0 },
                field: section.map { "\($0).\(key)" } ?? key, message: "is required")
        }
        return string
    }

    /// A boolean field; nil when absent.
    public func bool(_ key: String, section: String? = nil) throws(FileProblem) -> Bool? {
        guard let value = table(section)?[key] else { return nil }
        guard let bool = value.bool else { throw problem(key, section: section, "must be true or false") }
        return bool
    }

    /// An integer field; nil when absent.
    public func int(_ key: String, section: String? = nil) throws(FileProblem) -> Int? {
        guard let value = table(section)?[key] else { return nil }
        guard let int = value.int else { throw problem(key, section: section, "must be a whole number") }
        return int
    }

    /// An array-of-strings field; empty when absent.
    public func strings(_ key: String, section: String? = nil) throws(FileProblem) -> [String] {
        var result: [String] = []
        try forEachString(key, section: section) { result.append($0) }
        return result
    }

    /// Calls `body` with each string of an array-of-strings field (nothing when absent), so that
    /// a caller building something compact from 100 000 of them never holds them all as `String`s.
    ///
    /// The strings are read through TOMLKit's C layer and each copy it makes is freed: TOMLKit
    /// 0.6.0's `string` getter returns a `strdup` copy it never frees. For the 100 000 names of a
    /// large profile that leaked 2 MB per read in 32-byte pieces, spread over the heap the parse
    /// had used, where they kept about 8 MB of freed pages from going back.
    public func forEachString(
        _ key: String, section: String? = nil, _ body: (String) throws(FileProblem) -> Void
    ) throws(FileProblem) {
        guard let value = table(section)?[key] else { return }
        guard let array = value.array else { throw problem(key, section: section, "must be an array of strings") }
        guard let pointer = Self.arrayPointer(array) else {
            for element in array {
                guard let string = element.string else { throw problem(key, section: section, "must contain only strings") }
                try body(string)
            }
            return
        }
        for index in 0..<array.count {
            guard let copy = nodeAsString(arrayGetNode(pointer, Int64(index))) else {
                throw problem(key, section: section, "must contain only strings")
            }
            let string = String(cString: copy)
            free(UnsafeMutableRawPointer(mutating: copy))
            try body(string)
        }
    }

    /// The C array behind `array`, nil when TOMLKit no longer keeps its pointer where this
    /// looks (the caller then falls back to TOMLKit's leaking getter).
    static func arrayPointer(_ array: TOMLArray) -> OpaquePointer? {
        guard let pointer = Mirror(reflecting: array).children.first(where: { $0.label == "arrayPointer" })?.value as? OpaquePointer,
            arraySize(pointer) == array.count
        else { return nil }
        return pointer
    }

    /// A duration field written like the command line (`"25m"`); nil when absent.
    public func duration(_ key: String, section: String? = nil) throws(FileProblem) -> Duration? {
        guard let text = try string(key, section: section) else { return nil }
        do { return try DurationParser.parse(text) } catch { throw problem(key, value: text, section: section, error.description) }
    }

    /// Domain names, each parsed by `names`; the first bad one is reported at its line.
    public func domains(_ key: String, section: String? = nil, names: DomainNameParser) throws(FileProblem) -> [DomainName] {
        var result: [DomainName] = []
        try forEachString(key, section: section) { (text: String) throws(FileProblem) in
            do throws(DomainName.InvalidError) { result.append(try names.parseEntry(text)) } catch {
                throw problem(key, value: text, section: section, error.description)
            }
        }
        return result
    }

    /// Domain names as a compact list in their order without repeats, each parsed by `names`
    /// as it is read; the first bad one is reported at its line.
    public func domainList(_ key: String, section: String? = nil, names: DomainNameParser) throws(FileProblem) -> DomainList {
        try DomainList { (add: (DomainName) -> Void) throws(FileProblem) in
            try forEachString(key, section: section) { (text: String) throws(FileProblem) in
                do throws(DomainName.InvalidError) { add(try names.parseEntry(text)) } catch {
                    throw problem(key, value: text, section: section, error.description)
                }
            }
        }
    }

    /// Addresses and CIDR networks, each validated; the first bad one is reported at its line.
    public func networks(_ key: String, section: String? = nil) throws(FileProblem) -> [IPNetwork] {
        var result: [IPNetwork] = []
        for text in try strings(key, section: section) {
            do { result.append(try IPNetwork(parsing: text)) } catch {
                throw problem(key, value: text, section: section, error.description)
            }
        }
        return result
    }
}
