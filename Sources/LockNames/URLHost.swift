import LockCore

/// The host of what someone typed or pasted, found as the WHATWG URL standard (what browsers
/// implement) finds it, so that the name we block is the one the browser looks up.
///
/// Input with an `http`, `https`, `ws`, `wss` or `ftp` scheme is parsed as that URL; input
/// without a scheme (`example.com`, `example.com:443/x`, `//cdn.example.net/a.js`) is parsed as
/// if `http:` were in front, as an address bar does. Of a URL, only the authority matters: the
/// userinfo ends at the last `@`, a `\` ends the authority as `/` does (so
/// `https://example.com\@evil.com/` is `example.com`), and the port must be a valid one.
public enum URLHost: Equatable, Sendable {
    /// A domain in ASCII (UTS 46 applied), exactly as the browser would look it up; a trailing
    /// dot is kept, since the standard keeps it.
    case domain(String)
    /// An IPv4 address in any form browsers accept (`0x7f.1` is `127.0.0.1`), dotted.
    case ipv4(String)
    /// An IPv6 address literal, without brackets.
    case ipv6(String)

    /// Why no host could be found.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// A sentence saying what is wrong.
        public var reason: String
        public var description: String { reason }
    }

    /// The longest host text looked at, in UTF-8 bytes.
    static let maximumHostBytes = 4_096

    /// The schemes whose URLs have a host that names a site.
    static let webSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp"]

    /// The host of `input`, a URL or a bare name.
    public static func parse(_ input: String) throws(Failure) -> URLHost {
        // Code points, not characters: "/" followed by a combining mark is one Character but
        // two code points, and the URL standard reads code points.
        // It strips leading and trailing C0 controls and spaces, and every tab and newline inside.
        var text = ArraySlice(input.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
        while let first = text.first, first.value <= 0x20 { text = text.dropFirst() }
        while let last = text.last, last.value <= 0x20 { text = text.dropLast() }

        if let scheme = scheme(of: text) {
            let rest = text.dropFirst(scheme.count + 1)
            let name = String(String.UnicodeScalarView(scheme))
            if webSchemes.contains(name.lowercased()) {
                text = rest
            } else if name.lowercased() == "file" {
                throw Failure(reason: "a file: address names a file, not a site")
            } else if rest.starts(with: ["/", "/"]) {
                throw Failure(reason: "\"\(name):\" is not a web address (http, https, ws, wss or ftp)")
            }
            // Anything else (`example.com:443`, `localhost:8080`) is a name with a port.
        }
        // After a web scheme any run of slashes and backslashes starts the authority.
        text = text.drop { $0 == "/" || $0 == "\\" }
        let authority = text.prefix { !"/\\?#".unicodeScalars.contains($0) }
        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            hostAndPort = authority[(at + 1)...]
            guard !hostAndPort.isEmpty else { throw Failure(reason: "there is no host after the \"@\"") }
        }
        var insideBrackets = false
        var hostEnd = hostAndPort.endIndex
        for index in hostAndPort.indices {
            let scalar = hostAndPort[index]
            if scalar == "[" { insideBrackets = true }
            if scalar == "]" { insideBrackets = false }
            if scalar == ":", !insideBrackets {
                hostEnd = index
                break
            }
        }
        let host = String(String.UnicodeScalarView(hostAndPort[..<hostEnd]))
        guard !host.isEmpty else { throw Failure(reason: "it is empty") }
        if hostEnd != hostAndPort.endIndex {
            let port = String(String.UnicodeScalarView(hostAndPort[(hostEnd + 1)...]))
            guard port.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
                throw Failure(reason: "\":\(UTS46Diagnosis.visible(port))\" is not a port (a name cannot contain \":\")")
            }
            guard port.drop(while: { $0 == "0" }).count <= 5, Int(port).map({ $0 <= 65535 }) ?? true else {
                throw Failure(reason: "port \(port) is out of range (0-65535)")
            }
        }
        return try parseHost(host)
    }

    /// The URL standard's host parser for web addresses, on the text between `//` (or `@`) and
    /// the port.
    public static func parseHost(_ input: String) throws(Failure) -> URLHost {
        // No name is this long even before mapping (253 characters in ASCII); the bound keeps
        // the work for one request small, however much text a client sends.
        guard input.utf8.count <= maximumHostBytes else { throw Failure(reason: "it is longer than 253 characters") }
        if input.hasPrefix("[") {
            guard input.hasSuffix("]"), input.count >= 2 else { throw Failure(reason: "\"[\" is not closed by \"]\"") }
            let inner = String(input.dropFirst().dropLast())
            guard (try? IPNetwork(parsing: inner))?.family == .ipv6 else {
                throw Failure(reason: "\"\(inner)\" is not a valid IPv6 address")
            }
            return .ipv6(inner)
        }
        let decoded = String(decoding: percentDecoded(input), as: UTF8.self)
        let converted = UTS46.toASCII(decoded)
        guard converted.isValid else { throw Failure(reason: UTS46Diagnosis.reason(for: decoded, errors: converted.errors)) }
        let ascii = converted.text
        guard !ascii.isEmpty else { throw Failure(reason: "it is empty") }
        if let bad = ascii.unicodeScalars.first(where: isForbiddenInDomain) {
            throw Failure(reason: "\"\(UTS46Diagnosis.visible(String(bad)))\" is not allowed in a name (letters, digits and hyphens only)")
        }
        if IPv4Literal.endsInANumber(ascii) {
            guard let address = IPv4Literal.parse(ascii) else {
                throw Failure(reason: "it ends in a number, so browsers read it as an IP address, and it is not a valid one")
            }
            return .ipv4(IPv4Literal.format(address))
        }
        return .domain(ascii)
    }

    /// The scheme at the start of `text` (a letter, then letters, digits, `+`, `-`, `.`, then `:`).
    private static func scheme(of text: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar>? {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = text.first, isLetter(first) else { return nil }
        let name = text.prefix { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
        guard name.endIndex < text.endIndex, text[name.endIndex] == ":" else { return nil }
        return name
    }

    private static func percentDecoded(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The standard's forbidden domain code points: C0 controls, space, `#%/:<>?@[\]^|` and DEL.
    private static func isForbiddenInDomain(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F || "#%/:<>?@[\\]^|".unicodeScalars.contains(scalar)
    }
}
