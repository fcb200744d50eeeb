/// A validated, normalised domain name: lower-case ASCII, punycode for international labels,
/// no trailing dot. It stands for itself and every subdomain.
///
/// What people type or paste is turned into one by `DomainNameParser` (target `LockNames`),
/// which applies UTS 46 through ICU as browsers do; this core type only checks the ASCII form,
/// so that the CLI and the pure core never link ICU.
public struct DomainName: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The normalised name, e.g. `reddit.com` or `xn--bcher-kva.example`.
    public let value: String

    /// Why a name was refused.
    public struct InvalidError: Error, Equatable, CustomStringConvertible, Sendable {
        /// What the user typed.
        public var input: String
        /// Why it is not a usable domain name.
        public var reason: String
        public init(input: String, reason: String) {
            self.input = input
            self.reason = reason
        }
        public var description: String { "\"\(input)\" is not a valid domain name: \(reason)" }
    }

    /// Wraps a name that is already normalised (read back from our own state).
    public init(normalized: String) { value = normalized }

    /// Accepts text only if it is already in the normalised form (what the parser produces and
    /// what we store), so a damaged state file or request is refused rather than trusted.
    /// It cannot tell whether an `xn--` label decodes to something valid: that needs ICU.
    public init(validatingNormalized text: String) throws(InvalidError) {
        if let upper = text.first(where: { $0.isASCII && $0.isUppercase }) {
            throw InvalidError(input: text, reason: "it is not in normalised form (upper-case \"\(upper)\")")
        }
        if text.hasSuffix(".") { throw InvalidError(input: text, reason: "it is not in normalised form (a trailing dot)") }
        try Self.checkASCIIRules(text, input: text)
        value = text
    }

    /// Our own rules for a name in ASCII form, stricter than a browser's address bar: letters,
    /// digits and hyphens only (no `_`, `*`), no hyphen at either end of a label, no empty label,
    /// at most 63 characters per label and 253 in all, at least two labels, a last label that is
    /// not all digits, and never localhost. `input` is what the user typed, for the message.
    public static func checkASCIIRules(_ name: String, input: String) throws(InvalidError) {
        func fail(_ reason: String) -> InvalidError { InvalidError(input: input, reason: reason) }
        guard !name.isEmpty else { throw fail("it is empty") }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty else { throw fail("it has an empty label (two dots in a row, or a leading dot)") }
            if let bad = label.first(where: { !isNameCharacter($0) }) {
                throw fail("\"\(bad)\" is not allowed in a name (letters, digits and hyphens only)")
            }
            guard label.utf8.count <= 63 else { throw fail("label \"\(label)\" is longer than 63 characters") }
            guard !label.hasPrefix("-"), !label.hasSuffix("-") else {
                throw fail("label \"\(label)\" starts or ends with a hyphen")
            }
        }
        guard name.utf8.count <= 253 else { throw fail("it is longer than 253 characters") }
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { throw fail("it is an IP address, not a name") }
        guard labels.count >= 2 else { throw fail("a site needs at least two labels, like example.com") }
        guard !labels.last!.allSatisfy(\.isNumber) else { throw fail("its last label is all digits") }
        guard labels.last != "localhost" else { throw fail("blocking localhost would break this machine") }
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 0x61 && ascii <= 0x7A) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x30 && ascii <= 0x39)
            || ascii == 0x2D
    }

    /// The name with one `www.` in front, unless it already starts with `www.`.
    public var wwwTwin: String? { value.hasPrefix("www.") ? nil : "www." + value }

    /// Every suffix of the name that is itself a candidate rule, longest first:
    /// `a.b.example.com` → `a.b.example.com`, `b.example.com`, `example.com`, `com`.
    public static func suffixes(of name: String) -> [Substring] {
        var result: [Substring] = [Substring(name)]
        var rest = Substring(name)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            result.append(rest)
        }
        return result
    }

    public var description: String { value }
    public static func < (a: DomainName, b: DomainName) -> Bool { a.value < b.value }
}

extension DomainName {
    /// Decodes the stored text and checks that it is in normalised form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(validatingNormalized: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the normalised text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
