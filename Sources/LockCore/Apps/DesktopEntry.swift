/// A freedesktop desktop entry file (`steam.desktop`), as the Desktop Entry Specification 1.5
/// defines it: `[Group]` headers, `Key=Value` lines (localized keys `Name[de]=…`), `#` comments.
///
/// Parsing never traps, whatever the bytes: binary junk, over-long lines, keys outside a group,
/// repeated groups or keys are refused with a `DesktopEntryError` naming the line. Unknown
/// escape sequences in values are kept as written rather than refused, because real files use
/// `\"` in `Exec` with one backslash where the specification asks for two.
///
/// The same format serves flatpak's `metadata` files, so any group can be read with `value`.
public struct DesktopEntry: Sendable, Equatable {
    /// The largest file accepted (real entries are a few KiB; translations make some 100 KiB).
    public static let maximumSize = 1 << 20
    /// The longest line accepted.
    public static let maximumLineLength = 64 << 10
    /// The group every desktop entry must have.
    public static let mainGroup = "Desktop Entry"

    /// One `[Group]` with its keys. Values are raw (escapes not yet resolved); localized keys
    /// keep their locale suffix (`Name[de]`).
    public struct Group: Sendable, Equatable {
        /// The name between the brackets.
        public var name: String
        /// Raw values by key, in file order.
        public var entries: [(key: String, value: String)]

        public static func == (lhs: Group, rhs: Group) -> Bool {
            lhs.name == rhs.name && lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
        }

        /// The raw value of `key`, if present.
        public func rawValue(_ key: String) -> String? { entries.first { $0.key == key }?.value }
    }

    /// The groups in file order.
    public var groups: [Group]

    /// Parses text already known to be a string.
    public init(parsing text: String) throws(DesktopEntryError) {
        try self.init(bytes: Array(text.utf8), requireMainGroup: true)
    }

    /// Parses the bytes of a file.
    public init(bytes: [UInt8], requireMainGroup: Bool = true) throws(DesktopEntryError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(bytes: bytes.count, limit: Self.maximumSize) }
        var groups: [Group] = []
        var seenGroups: Set<String> = []
        var seenKeys: Set<String> = []
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            defer { start = end + 1 }
            guard end - start <= Self.maximumLineLength else {
                throw .lineTooLong(line: lineNumber, limit: Self.maximumLineLength)
            }
            var slice = bytes[start..<end]
            if slice.contains(0) { throw .nulByte(line: lineNumber) }
            if slice.last == UInt8(ascii: "\r") { slice = slice.dropLast() }
            guard let line = String(validating: slice, as: UTF8.self) else { throw .invalidUTF8(line: lineNumber) }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            if trimmed.first == "[" {
                let header = trimmed.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
                guard header.last == "]", header.count >= 3 else { throw .malformedGroupHeader(line: lineNumber) }
                let name = String(header.dropFirst().dropLast())
                guard !name.contains("["), !name.contains("]"),
                    !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                else {
                    throw .malformedGroupHeader(line: lineNumber)
                }
                guard seenGroups.insert(name).inserted else { throw .duplicateGroup(line: lineNumber, name: name) }
                groups.append(Group(name: name, entries: []))
                seenKeys = []
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else { throw .malformedLine(line: lineNumber) }
            let key = String(trimmed[..<equals].reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            guard Self.isValidKey(key) else { throw .invalidKey(line: lineNumber, key: key) }
            guard !groups.isEmpty else { throw .entryOutsideGroup(line: lineNumber) }
            let value = String(trimmed[trimmed.index(after: equals)...].drop { $0 == " " || $0 == "\t" })
            guard seenKeys.insert(key).inserted else {
                throw .duplicateKey(line: lineNumber, group: groups[groups.count - 1].name, key: key)
            }
            groups[groups.count - 1].entries.append((key, value))
        }
        if requireMainGroup, !seenGroups.contains(Self.mainGroup) { throw .missingDesktopEntryGroup }
        self.groups = groups
    }

    /// Keys are `A-Za-z0-9-` (the specification) plus `_` and `.` seen in vendor keys, with an
    /// optional `[locale]` suffix.
    static func isValidKey(_ key: String) -> Bool {
        var base = Substring(key)
        if let open = key.firstIndex(of: "[") {
            guard key.last == "]" else { return false }
            let locale = key[key.index(after: open)..<key.index(before: key.endIndex)]
            guard !locale.isEmpty, locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_@.-".contains($0)) }) else {
                return false
            }
            base = key[..<open]
        }
        return !base.isEmpty && base.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }

    /// The group called `name`.
    public func group(_ name: String) -> Group? { groups.first { $0.name == name } }

    /// A string value with the specification's escapes (`\s \n \t \r \\`) resolved.
    public func value(_ key: String, in group: String = DesktopEntry.mainGroup) -> String? {
        self.group(group)?.rawValue(key).map { Self.unescape($0) }
    }

    /// A list value (`a;b;c;`), split on unescaped `;`, empty items dropped.
    public func list(_ key: String, in group: String = DesktopEntry.mainGroup) -> [String] {
        guard let raw = self.group(group)?.rawValue(key) else { return [] }
        return Self.splitList(raw)
    }

    /// A boolean value: `true` (or `1`, as old files write) is true; anything else is false.
    public func bool(_ key: String, in group: String = DesktopEntry.mainGroup) -> Bool {
        guard let raw = self.group(group)?.rawValue(key) else { return false }
        return raw == "true" || raw == "1"
    }

    // MARK: Desktop entry keys

    /// `Type` (`Application`, `Link`, `Directory`).
    public var type: String? { value("Type") }
    /// True for `Type=Application`, the only kind that names a program.
    public var isApplication: Bool { type == "Application" }
    /// The unlocalized `Name`.
    public var name: String? { value("Name") }
    /// `Name[locale]` values by locale.
    public var localizedNames: [String: String] {
        var names: [String: String] = [:]
        for (key, raw) in group(Self.mainGroup)?.entries ?? [] where key.hasPrefix("Name[") && key.hasSuffix("]") {
            names[String(key.dropFirst(5).dropLast())] = Self.unescape(raw)
        }
        return names
    }
    /// The `Exec` value with the general escapes resolved (quoting and field codes are
    /// `DesktopExec`'s job).
    public var exec: String? { value("Exec") }
    /// `TryExec`: a program whose absence means the application is not installed.
    public var tryExec: String? { value("TryExec") }
    /// `Path`: the working directory the program runs in.
    public var workingDirectory: String? { value("Path") }
    /// `Categories`, as written (case-sensitive, as the specification says).
    public var categories: [String] { list("Categories") }
    /// `NoDisplay=true`: installed but not shown in menus.
    public var noDisplay: Bool { bool("NoDisplay") }
    /// `Hidden=true`: the entry counts as deleted.
    public var hidden: Bool { bool("Hidden") }
    /// `X-Flatpak`: the flatpak application id of an exported entry.
    public var flatpakID: String? { value("X-Flatpak").flatMap { $0.isEmpty ? nil : $0 } }
    /// `X-SnapInstanceName`: the snap an exported entry belongs to.
    public var snapInstanceName: String? { value("X-SnapInstanceName").flatMap { $0.isEmpty ? nil : $0 } }

    /// Parses `Exec` into arguments; nil when there is no `Exec`.
    public func parsedExec() throws(DesktopEntryError) -> DesktopExec? {
        guard let exec else { return nil }
        return try DesktopExec(parsing: exec)
    }

    // MARK: Escapes

    static func unescape(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        var result = ""
        var iterator = raw.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            guard let next = iterator.next() else {
                result.append("\\")
                break
            }
            switch next {
            case "s": result.append(" ")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "\\": result.append("\\")
            default:
                result.append("\\")
                result.append(next)
            }
        }
        return result
    }

    static func splitList(_ raw: String) -> [String] {
        var items: [String] = []
        var current = ""
        let characters = Array(raw)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                // `\;` is a semicolon inside an item; other escapes are resolved by `unescape`.
                if characters[index + 1] == ";" {
                    current.append(";")
                } else {
                    current.append(character)
                    current.append(characters[index + 1])
                }
                index += 2
                continue
            }
            if character == ";" {
                if !current.isEmpty { items.append(unescape(current)) }
                current = ""
            } else {
                current.append(character)
            }
            index += 1
        }
        if !current.isEmpty { items.append(unescape(current)) }
        return items
    }
}
