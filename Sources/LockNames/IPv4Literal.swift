/// The URL standard's IPv4 parser: the forms browsers accept as an address, which include
/// `0x7f.1`, `0177.0.0.1`, `2130706433` and `127.1`, not only four decimal parts.
enum IPv4Literal {
    /// Whether browsers read `host` (already in ASCII) as an IPv4 address: its last label, a
    /// trailing dot aside, is all digits or a `0x` number ("ends in a number" in the standard).
    static func endsInANumber(_ host: String) -> Bool {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "" {
            if parts.count == 1 { return false }
            parts.removeLast()
        }
        guard let last = parts.last else { return false }
        if !last.isEmpty, last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        return number(last) != nil
    }

    /// The address, or nil when `host` is not a valid IPv4 address in any of the URL standard's forms.
    static func parse(_ host: String) -> UInt32? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            numbers.append(value)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let last = numbers.removeLast()
        guard last < UInt64(1) << (8 * (5 - UInt64(parts.count))) else { return nil }
        var address = last
        for (index, value) in numbers.enumerated() { address += value << (8 * (3 - UInt64(index))) }
        return UInt32(address)
    }

    /// Dotted-decimal text of an address.
    static func format(_ address: UInt32) -> String {
        (0..<4).map { String((address >> (24 - 8 * UInt32($0))) & 0xFF) }.joined(separator: ".")
    }

    /// One part: decimal, `0x` hexadecimal or `0` octal; values beyond 2^32 count as invalid,
    /// which they are in every position.
    private static func number(_ text: Substring) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var digits = text
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.hasPrefix("0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for character in digits {
            guard let digit = character.hexDigitValue, character.isASCII, UInt64(digit) < radix else { return nil }
            value = value * radix + UInt64(digit)
            if value > UInt64(UInt32.max) + 1 { value = UInt64(UInt32.max) + 1 }
        }
        return value
    }
}
