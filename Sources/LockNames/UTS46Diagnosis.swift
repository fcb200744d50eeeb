/// Turns ICU's error bits into a sentence that names the label and, where it can, the
/// character at fault, so a refused name says more than "invalid".
enum UTS46Diagnosis {
    /// Why `name` (as given to `UTS46.toASCII`, which reported `errors`) is refused.
    static func reason(for name: String, errors: UTS46.Errors) -> String {
        // ICU reports errors for the whole name; redo the labels one by one to say which.
        let labels = name.split(omittingEmptySubsequences: true) { ".。．｡".contains($0) }
        for label in labels {
            let result = UTS46.toASCII(String(label))
            if !result.isValid { return reason(label: String(label), errors: result.errors) }
        }
        if errors.contains(.bidi) {
            return "it mixes right-to-left and left-to-right labels in a way browsers refuse (the bidi rule of RFC 5893)"
        }
        return "browsers refuse it (UTS 46 error bits 0x\(String(errors.rawValue, radix: 16)))"
    }

    private static func reason(label: String, errors: UTS46.Errors) -> String {
        let shown = visible(label)
        let isACE = label.lowercased().hasPrefix("xn--")
        if errors.contains(.punycode) { return "label \"\(shown)\" is not valid punycode" }
        if errors.contains(.invalidACELabel) || (isACE && !errors.isDisjoint(with: [.disallowed, .labelHasDot])) {
            return invalidACEReason(label: label)
        }
        if errors.contains(.disallowed) {
            for scalar in label.unicodeScalars where UTS46.toASCII(String(scalar)).errors.contains(.disallowed) {
                return "\"\(visible(String(scalar)))\" (\(codePoint(scalar))) cannot appear in a name"
            }
            return "label \"\(shown)\" contains a character that cannot appear in a name"
        }
        if errors.contains(.leadingCombiningMark) { return "label \"\(shown)\" starts with a combining mark" }
        if errors.contains(.contextJ) {
            return "label \"\(shown)\" has a zero-width joiner or non-joiner where its script does not use one"
        }
        if errors.contains(.labelHasDot) { return "label \"\(shown)\" turns into text containing a dot" }
        if errors.contains(.bidi) {
            return "label \"\(shown)\" mixes right-to-left and left-to-right text in a way browsers refuse (the bidi rule of RFC 5893)"
        }
        return "label \"\(shown)\" is refused by browsers (UTS 46 error bits 0x\(String(errors.rawValue, radix: 16)))"
    }

    /// Says what an `xn--` label that ICU refused decodes to, and why that is not a name.
    private static func invalidACEReason(label: String) -> String {
        let shown = visible(label)
        guard let decoded = PunycodeDecoder.decode(label.dropFirst(4)), !decoded.isEmpty else {
            return "label \"\(shown)\" is not valid punycode"
        }
        let prefix = "label \"\(shown)\" decodes to \"\(visible(decoded))\""
        let again = UTS46.toASCII(decoded)
        if !again.isValid {
            return prefix + ", which cannot be a name: " + reason(for: decoded, errors: again.errors)
        }
        if again.text.contains(".") { return prefix + ", which contains a dot" }
        // The decoded text is valid but is not what browsers produce for it: upper case, a
        // character they map to another (a look-alike), or text that is not in normalised form.
        return prefix + ", which browsers would write as \"\(again.text)\"; punycode that no browser "
            + "produces is refused, as browsers refuse it"
    }

    /// The text with invisible characters (joiners, controls, format characters) written as
    /// `<U+200D>`, so that a message shows what is really there.
    static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            if scalar != " ",
                [
                    .format, .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse,
                    .surrogate,
                ].contains(category) || scalar.properties.isDefaultIgnorableCodePoint
            {
                result += "<\(codePoint(scalar))>"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
