/// Text that people read on terminals and desktops (display names, descriptions, icons): any
/// group member may write it and every `lockctl` user sees it, so characters that steer a
/// terminal or reorder what is shown are refused where the text comes in, and escaped where it
/// goes out (for text stored before this rule).
public enum DisplayText {
    /// The longest text accepted, in code points (as JSON Schema's `maxLength` counts).
    public static let maximumLength = 1024

    /// Whether `scalar` may not appear in display text: C0 and C1 controls (ESC, NUL, U+0085),
    /// the line and paragraph separators, and the bidi controls (they can make a name read as
    /// another one). Tab is refused too: it would break the aligned columns.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// How a forbidden character is named in messages and escaped on output: `\u{1B}`.
    public static func escaped(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{\(hex)}"
    }

    /// Refuses text with a forbidden character or longer than `maximumLength`, naming `field`.
    public static func validate(_ text: String?, field: String) throws(FieldError) {
        guard let text else { return }
        if let bad = text.unicodeScalars.first(where: isForbidden) {
            throw FieldError(
                field: field, value: sanitized(text),
                reason: "contains the control character \(name(bad)); display text may not contain control characters")
        }
        let length = text.unicodeScalars.count
        guard length <= maximumLength else {
            throw FieldError(field: field, reason: "is \(length) characters long; at most \(maximumLength) are accepted")
        }
    }

    /// `text` with every forbidden character escaped, safe to print to a terminal.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isForbidden) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isForbidden(scalar) { result += escaped(scalar) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    private static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        switch scalar.value {
        case 0x00: return code + " (NUL)"
        case 0x0A: return code + " (line feed)"
        case 0x1B: return code + " (escape)"
        case 0x85: return code + " (next line)"
        case 0x2028: return code + " (line separator)"
        case 0x2029: return code + " (paragraph separator)"
        case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: return code + " (a bidi control)"
        default: return code
        }
    }
}
