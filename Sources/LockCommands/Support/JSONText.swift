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
