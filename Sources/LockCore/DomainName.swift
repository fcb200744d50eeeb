import Foundation

/// A validated, normalised domain name: lower-case ASCII, punycode for international labels,
/// no trailing dot. It stands for itself and every subdomain.
public struct DomainName: TextCodable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The normalised name, e.g. `reddit.com` or `xn--bcher-kva.example`.
    public let value: String

    /// Why a name was refused.
    public struct InvalidError: Error, Equatable, CustomStringConvertible, Sendable {
        /// What the user typed.
        public var input: String
        /// Why it is not a usable domain name.
        public var reason: String
        public var description: String { "\"\(input)\" is not a valid domain name: \(reason)" }
    }

    /// Normalises what a user typed or pasted: surrounding space, letter case, a trailing dot,
    /// a URL such as `https://www.reddit.com/r/x?y`, a `*.` wildcard prefix, a port, and
    /// internationalised labels (converted to punycode).
    public init(parsing input: String) throws(InvalidError) {
        func fail(_ reason: String) -> InvalidError { InvalidError(input: input, reason: reason) }
        var text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        if let scheme = text.range(of: "://") { text = String(text[scheme.upperBound...]) }
        if text.hasPrefix("//") { text.removeFirst(2) }
        if let cut = text.firstIndex(where: { "/?#".contains($0) }) { text = String(text[..<cut]) }
        if let at = text.lastIndex(of: "@") { text = String(text[text.index(after: at)...]) }
        if text.hasPrefix("[") { throw fail("it is an IP address, not a name") }
        if let colon = text.lastIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else {
                throw fail(text.contains(":") && text.filter({ $0 == ":" }).count > 1
                    ? "it is an IP address, not a name" : "\":\" is not allowed in a name")
            }
            text = String(text[..<colon])
        }
        // Full-width and ideographic dots are label separators in IDNA.
        text = String(text.map { "。．｡".contains($0) ? "." : $0 })
        if text.hasPrefix("*.") { text.removeFirst(2) }
        if text.hasSuffix(".") { text.removeLast() }
        text = text.precomposedStringWithCanonicalMapping.lowercased()
        guard !text.isEmpty else { throw fail("it is empty") }

        var labels: [String] = []
        for raw in text.split(separator: ".", omittingEmptySubsequences: false) {
            let label = String(raw)
            guard !label.isEmpty else { throw fail("it has an empty label (two dots in a row, or a leading dot)") }
            var ascii = label
            if !label.unicodeScalars.allSatisfy(\.isASCII) {
                guard label.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-" }) else {
                    throw fail("label \"\(label)\" contains a character that cannot appear in a name")
                }
                guard let encoded = Punycode.encode(label) else { throw fail("label \"\(label)\" cannot be encoded") }
                ascii = "xn--" + encoded
            }
            guard ascii.count <= 63 else { throw fail("label \"\(label)\" is longer than 63 characters") }
            guard ascii.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                let bad = ascii.first { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")) }!
                throw fail("\"\(bad)\" is not allowed in a name (letters, digits and hyphens only)")
            }
            guard !ascii.hasPrefix("-"), !ascii.hasSuffix("-") else {
                throw fail("label \"\(label)\" starts or ends with a hyphen")
            }
            labels.append(ascii)
        }
        let joined = labels.joined(separator: ".")
        guard joined.count <= 253 else { throw fail("it is longer than 253 characters") }
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { throw fail("it is an IP address, not a name") }
        guard labels.count >= 2 else { throw fail("a site needs at least two labels, like example.com") }
        guard !labels.last!.allSatisfy(\.isNumber) else { throw fail("its last label is all digits") }
        guard labels.last != "localhost" else { throw fail("blocking localhost would break this machine") }
        value = joined
    }

    /// Wraps a name that is already normalised (read back from our own state).
    public init(normalized: String) { value = normalized }

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
    /// The text stored and sent for this value.
    public var codableText: String { value }
}
