import LockCore

/// Something wrong in a file, located well enough to fix it: `profiles.d/focus.toml:4: domains:
/// "exa mple.com" is not a valid domain name: …`.
public struct FileProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file's path.
    public var file: String
    /// 1-based line, when known.
    public var line: Int?
    /// The field, when the problem is with one.
    public var field: String?
    /// What is wrong.
    public var message: String

    /// Creates a problem.
    public init(file: String, line: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let field { text += "\(field): " }
        return text + message
    }
}
