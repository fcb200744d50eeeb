import Foundation
import LockProtocol

/// JSON as lockctl prints it: the API's encoding (RFC 3339 dates, sorted keys), indented.
enum JSONText {
    static func pretty(_ value: some Encodable) -> String {
        let data = (try? API.makeEncoder(pretty: true).encode(value)) ?? Data("null".utf8)
        return tidy(String(decoding: data, as: UTF8.self))
    }

    static func compact(_ value: some Encodable) -> String {
        String(decoding: (try? API.makeEncoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// `pretty` of the value that compact JSON (as the API sends it: sorted keys, no spaces)
    /// encodes, without decoding it: the layout is rewritten byte by byte, strings are copied
    /// as they are. Status bars poll `lockctl status --json` every second or two, and
    /// decoding and encoding again cost more than everything else that call does.
    static func indent(compact bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0
        func newline() {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                // An empty container stays on its line: `[]`, `{}` (as `tidy` writes them).
                if index < bytes.count, bytes[index] == (byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    out.append(bytes[index])
                    index += 1
                } else {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: " "), byte, UInt8(ascii: " ")])
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                continue
            default:
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Foundation pretty-prints an empty array or object over two lines (`[\n\n  ]`); written
    /// as `[]` and `{}` they read as what they are.
    static func tidy(_ text: String) -> String {
        guard text.contains("[\n") || text.contains("{\n") else { return text }
        var result = ""
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            let opener = line.last
            if opener == "[" || opener == "{" {
                var ahead = lines
                while let next = ahead.first, next.trimmingCharacters(in: .whitespaces).isEmpty { ahead = ahead.dropFirst() }
                if let closing = ahead.first, let close = closing.trimmingCharacters(in: .whitespaces).first,
                    close == (opener == "[" ? "]" : "}")
                {
                    let rest = closing.trimmingCharacters(in: .whitespaces).dropFirst()
                    result += line + String(close) + rest + "\n"
                    lines = ahead.dropFirst()
                    continue
                }
            }
            result += line + "\n"
        }
        return String(result.dropLast())
    }
}
