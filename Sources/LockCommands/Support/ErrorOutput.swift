import Foundation

/// Writes failures to stderr: `lockctl: <message>` and at most one `hint:` line, or with
/// `--json` one object `{"error": {"code", "message", "hint"}}`.
enum ErrorOutput {
    private struct Body: Encodable {
        struct Error: Encodable {
            var code: String
            var message: String
            var hint: String?
        }
        var error: Error
    }

    static func text(_ failure: CommandFailure, json: Bool) -> String {
        if json {
            return JSONText.compact(Body(error: .init(code: failure.errorCode, message: failure.message, hint: failure.hint)))
        }
        var text = "lockctl: \(TextFormat.shown(failure.message))"
        if let hint = failure.hint { text += "\nhint: \(TextFormat.shown(hint))" }
        return text
    }

    static func print(_ failure: CommandFailure, json: Bool) {
        FileHandle.standardError.write(Data((text(failure, json: json) + "\n").utf8))
    }
}
