import Foundation

/// Writes the simple TOML our files use, in a fixed, readable layout: one array element per
/// line, so that hand edits and diffs stay pleasant and error lines point at one value.
public struct TOMLWriter {
    private var text = ""

    /// Starts a document with comment lines.
    public init(header: [String] = []) {
        for line in header { text += "# \(line)\n" }
        if !header.isEmpty { text += "\n" }
    }

    /// `key = "value"`, skipped when nil.
    public mutating func string(_ key: String, _ value: String?) {
        guard let value else { return }
        text += "\(key) = \(TOMLWriter.quote(value))\n"
    }

    /// `key = true|false`.
    public mutating func bool(_ key: String, _ value: Bool) { text += "\(key) = \(value)\n" }

    /// `key = 42`.
    public mutating func int(_ key: String, _ value: Int) { text += "\(key) = \(value)\n" }

    /// `key = [ … ]`, one element per line (`[]` when empty).
    public mutating func strings(_ key: String, _ values: [String]) {
        guard !values.isEmpty else {
            text += "\(key) = []\n"
            return
        }
        text += "\(key) = [\n"
        for value in values { text += "    \(TOMLWriter.quote(value)),\n" }
        text += "]\n"
    }

    /// A `[table]` header.
    public mutating func table(_ name: String) { text += "\n[\(name)]\n" }

    /// The document.
    public var output: String { text }

    /// A TOML basic string with the escapes the specification requires.
    public static func quote(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
