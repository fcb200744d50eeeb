/// How the lines of a blocklist are told apart: spaces, comments that are cosmetic filters,
/// the addresses hosts files use to mean "nowhere", names local to a machine, and names
/// already in normal form. Shared by `BlocklistParser`'s line and byte paths.
enum BlocklistSyntax {
    static let localNames: Set<String> = [
        "localhost", "localhost.localdomain", "local", "broadcasthost", "localdomain", "ip6-localhost",
        "ip6-loopback", "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters", "ip6-allhosts",
    ]

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0d || byte == 0x0b || byte == 0x0c }
    static func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }

    private static let cosmeticMarkers = ["##", "#@#", "#?#", "#$#", "#%#", "#@$#", "#@?#"]

    /// `##.ad`, `#@#.banner` at the start of a line (a generic cosmetic rule), as opposed to a
    /// comment such as `## Ads ##` or `#####`.
    static func startsCosmetic(_ text: Substring) -> Bool {
        for marker in cosmeticMarkers where text.hasPrefix(marker) {
            guard let next = text.dropFirst(marker.count).first else { return false }
            return next != " " && next != "\t" && next != "#"
        }
        return false
    }

    /// `example.com##.ad`: a cosmetic marker right after a domain (no space before it).
    static func containsCosmetic(_ text: Substring) -> Bool {
        guard let hash = text.firstIndex(of: "#"), hash > text.startIndex else { return false }
        let before = text[text.index(before: hash)]
        guard before != " " && before != "\t" else { return false }
        return cosmeticMarkers.contains { text[hash...].hasPrefix($0) }
    }

    /// The address a hosts line starts with (`fe80::1%lo0` allowed), or nil.
    static func address(_ field: Substring) -> IPNetwork? {
        guard field.contains(":") || field.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
        let plain = field.split(separator: "%", maxSplits: 1)[0]
        guard !plain.contains("/"), let network = try? IPNetwork(parsing: String(plain)), network.isSingleAddress else { return nil }
        return network
    }

    /// Addresses hosts files use to mean "nowhere": 0.0.0.0, 127.0.0.0/8, :: and ::1.
    static func isSinkhole(_ address: IPNetwork) -> Bool {
        switch address.family {
        case .ipv4: address.address == 0 || address.address >> 24 == 127
        case .ipv6: address.address <= 1
        }
    }

    /// The name itself when it is already normal (lowercase ASCII letters, digits and inner
    /// hyphens, 2+ labels of 1–63 bytes, at most 253 bytes, no punycode, a last label that is
    /// not all digits or `localhost`): most of a list, without the normaliser's cost.
    static func plainASCIIName(_ name: String) -> String? {
        let bytes = name.utf8
        guard bytes.count <= 253 else { return nil }
        var labelLength = 0
        var labels = 0
        var previous: UInt8 = UInt8(ascii: ".")
        var lastLabelAllDigits = true
        var labelStart = true
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
                labels += 1
                labelLength = 0
                labelStart = true
                lastLabelAllDigits = true
            } else {
                let letter = byte >= 0x61 && byte <= 0x7a
                let digit = byte >= 0x30 && byte <= 0x39
                guard letter || digit || byte == UInt8(ascii: "-") else { return nil }
                if labelStart { guard byte != UInt8(ascii: "-") else { return nil } }
                labelLength += 1
                guard labelLength <= 63 else { return nil }
                // `xn--` and other `??--` labels are encoded or reserved: the normaliser judges them.
                if labelLength == 4, byte == UInt8(ascii: "-"), previous == UInt8(ascii: "-") { return nil }
                if !digit { lastLabelAllDigits = false }
                labelStart = false
            }
            previous = byte
        }
        guard labelLength > 0, previous != UInt8(ascii: "-"), labels >= 1, !lastLabelAllDigits else { return nil }
        guard !name.hasSuffix(".localhost") else { return nil }
        return name
    }

    static func printable(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes.prefix(BlocklistReport.exampleLength) {
            if byte >= 0x20 && byte < 0x7f {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + String(byte, radix: 16, uppercase: false).leftPadded(to: 2)
            }
        }
        return text
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
