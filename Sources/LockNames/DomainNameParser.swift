import Foundation
import LockCore

/// Turns what people type or paste into the `DomainName` a browser would look up, and refuses
/// what cannot be blocked as a site.
///
/// 1. The host is found as the WHATWG URL standard finds it (`URLHost`): pasted URLs, userinfo,
///    ports, `\` after a web scheme, percent-encoded hosts; IPv4 and IPv6 literals are refused.
/// 2. UTS 46 through ICU maps and converts it as browsers do (full-width forms, ligatures, case,
///    Indic names with viramas, ZWNJ in Persian) and refuses what browsers refuse (bidi
///    violations, joiners out of context, `xn--` labels that do not decode to a valid name).
/// 3. A trailing dot and a `*.` wildcard prefix are dropped, and our own rules
///    (`DomainName.checkASCIIRules`) apply.
/// 4. A leading `www.` is dropped, so `https://www.reddit.com/r/x` blocks `reddit.com` with every
///    subdomain, unless what is left is a public suffix (`www.co.uk` stays as it is).
/// 5. Public suffixes (`com`, `co.uk`, `github.io`) are refused: blocking one blocks every site under it.
public struct DomainNameParser: Sendable {
    /// The longest input looked at, in UTF-8 bytes.
    public static let maximumInputBytes = 65_536

    /// The list used to refuse public suffixes; nil when it could not be loaded, and then no
    /// suffix is refused (`co.uk` is accepted) and `www.` is dropped whenever two labels remain.
    public let publicSuffixes: PublicSuffixList?

    /// A parser that refuses the suffixes of `publicSuffixes`, or none when it is nil.
    public init(publicSuffixes: PublicSuffixList?) {
        self.publicSuffixes = publicSuffixes
    }

    /// A parser with the machine's list (Debian's `publicsuffix` package). When the list cannot
    /// be read the parser still works, without refusing suffixes, and `problem` says why.
    public static func system(listPath: String = PublicSuffixListFile.debianPath)
        -> (parser: DomainNameParser, problem: PublicSuffixListFile.LoadError?)
    {
        do { return (DomainNameParser(publicSuffixes: try PublicSuffixListFile.load(listPath)), nil) } catch {
            return (DomainNameParser(publicSuffixes: nil), error)
        }
    }

    /// The name to block for `input`, or why it cannot be blocked.
    public func parse(_ input: String) throws(DomainName.InvalidError) -> DomainName {
        var name = try lookupName(input).value
        if name.hasPrefix("www.") {
            let rest = String(name.dropFirst(4))
            if rest.contains("."), publicSuffixes?.isPublicSuffix(rest) != true { name = rest }
        }
        if let publicSuffixes, publicSuffixes.isPublicSuffix(name) {
            let shown = name.contains("xn--") ? "\(UTS46.toUnicode(name).text) (\(name))" : name
            throw DomainName.InvalidError(input: input, reason: "\(shown) is a public suffix: it would block every site under it")
        }
        return DomainName(normalized: name)
    }

    /// The name to block for one entry of a list (a request's or a file's): a control
    /// character inside it is refused rather than dropped as a browser drops tabs and newlines
    /// from a pasted URL, which made `"a.example\n0.0.0.0 x"` block a name nobody wrote.
    public func parseEntry(_ input: String) throws(DomainName.InvalidError) -> DomainName {
        let inner = input.trimmingCharacters(in: .whitespacesAndNewlines)
        if let bad = inner.unicodeScalars.first(where: DisplayText.isForbidden) {
            throw DomainName.InvalidError(
                input: DisplayText.sanitized(input),
                reason: "it contains the control character \(DisplayText.escaped(bad)); give one name per entry")
        }
        return try parse(input)
    }

    /// The name a browser looks up for `input` (steps 1 to 3, keeping `www.` and public
    /// suffixes), for asking whether a name is blocked rather than blocking it.
    public func lookupName(_ input: String) throws(DomainName.InvalidError) -> DomainName {
        func fail(_ reason: String) -> DomainName.InvalidError { DomainName.InvalidError(input: input, reason: reason) }
        // Browsers accept URLs of a few megabytes, but nobody pastes one to block a site; the
        // bound keeps a request's work small.
        guard input.utf8.count <= Self.maximumInputBytes else {
            throw DomainName.InvalidError(
                input: String(input.prefix(64)) + "…",
                reason: "it is \(input.utf8.count) bytes long; a name or address is at most \(Self.maximumInputBytes)")
        }
        var trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
        // The wildcard is ours, not part of the name: it goes before UTS 46 sees it, or the
        // bidi rule would judge "*" as a label of a right-to-left name.
        if trimmed.hasPrefix("*.") { trimmed.removeFirst(2) }
        guard !trimmed.isEmpty else { throw fail("it is empty") }
        let host: URLHost
        do { host = try URLHost.parse(trimmed) } catch { throw fail(error.reason) }
        guard case .domain(var name) = host else { throw fail("it is an IP address, not a name") }
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix("*.") { name.removeFirst(2) }
        try DomainName.checkASCIIRules(name, input: input)
        return DomainName(normalized: name)
    }
}
