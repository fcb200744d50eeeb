/// Why a `.desktop` file (or its `Exec` value) could not be read. Every case names the line
/// (1-based) or the value concerned, so that a catalog scan can say exactly which file is broken
/// and why, and go on with the others.
public enum DesktopEntryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes on this line are not UTF-8 (a binary or wrongly encoded file).
    case invalidUTF8(line: Int)
    /// A NUL byte: not a text file.
    case nulByte(line: Int)
    /// A line longer than the parser accepts.
    case lineTooLong(line: Int, limit: Int)
    /// The whole file is larger than the parser accepts.
    case tooLarge(bytes: Int, limit: Int)
    /// A key or value appears before the first `[Group]` header.
    case entryOutsideGroup(line: Int)
    /// A `[` line that is not a well-formed group header.
    case malformedGroupHeader(line: Int)
    /// A line that is neither blank, a comment, a group header nor `Key=Value`.
    case malformedLine(line: Int)
    /// A line whose key is empty or contains characters keys may not hold.
    case invalidKey(line: Int, key: String)
    /// The same group twice.
    case duplicateGroup(line: Int, name: String)
    /// The same key twice in one group.
    case duplicateKey(line: Int, group: String, key: String)
    /// No `[Desktop Entry]` group at all.
    case missingDesktopEntryGroup
    /// `Exec` has an opening quote that is never closed.
    case unterminatedQuote(exec: String)
    /// `Exec` has a `%` followed by a letter the specification does not define.
    case unknownFieldCode(exec: String, code: String)
    /// `Exec` names no program (empty, or only field codes).
    case emptyExec

    public var description: String {
        switch self {
        case .invalidUTF8(let line): "line \(line): not valid UTF-8 (binary or wrongly encoded file)"
        case .nulByte(let line): "line \(line): contains a NUL byte (not a text file)"
        case .lineTooLong(let line, let limit): "line \(line): longer than \(limit) bytes"
        case .tooLarge(let bytes, let limit): "file of \(bytes) bytes is larger than the \(limit)-byte limit"
        case .entryOutsideGroup(let line): "line \(line): key before the first [group] header"
        case .malformedGroupHeader(let line): "line \(line): malformed group header"
        case .malformedLine(let line): "line \(line): neither a comment, a [group] header nor Key=Value"
        case .invalidKey(let line, let key): "line \(line): invalid key \"\(key)\""
        case .duplicateGroup(let line, let name): "line \(line): group [\(name)] appears twice"
        case .duplicateKey(let line, let group, let key): "line \(line): key \(key) appears twice in [\(group)]"
        case .missingDesktopEntryGroup: "no [Desktop Entry] group"
        case .unterminatedQuote(let exec): "Exec \"\(exec)\": unterminated quote"
        case .unknownFieldCode(let exec, let code): "Exec \"\(exec)\": unknown field code \(code)"
        case .emptyExec: "Exec names no program"
        }
    }
}
