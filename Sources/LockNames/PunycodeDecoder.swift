/// RFC 3492 decoding of an `xn--` label, used only to explain why ICU refused one: ICU says that
/// the label is invalid but not what it decodes to, and "decodes to aͺ" is the useful part.
/// Conversion itself is ICU's (`UTS46`).
enum PunycodeDecoder {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700

    /// The decoded text of `encoded` (without `xn--`), or nil if it is not valid punycode.
    static func decode(_ encoded: Substring) -> String? {
        let bytes = Array(encoded.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let delimiter = bytes.lastIndex(of: UInt8(ascii: "-"))
        var output: [UInt32] = delimiter.map { bytes[..<$0].map(UInt32.init) } ?? []
        var index = delimiter.map { $0 + 1 } ?? 0
        var n = 128, i = 0, bias = 72
        while index < bytes.count {
            let oldI = i
            var weight = 1
            var k = base
            while true {
                guard index < bytes.count, let digit = digitValue(bytes[index]) else { return nil }
                index += 1
                let (product, overflow) = digit.multipliedReportingOverflow(by: weight)
                guard !overflow, i <= Int(Int32.max) - product else { return nil }
                i += product
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < t { break }
                guard weight <= Int(Int32.max) / (base - t) else { return nil }
                weight *= base - t
                k += base
            }
            bias = adapt(delta: i - oldI, count: output.count + 1, first: oldI == 0)
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= 0x10FFFF else { return nil }
            output.insert(UInt32(n), at: i)
            i += 1
        }
        var text = ""
        for value in output {
            guard let scalar = Unicode.Scalar(value) else { return nil }
            text.unicodeScalars.append(scalar)
        }
        return text
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }

    private static func adapt(delta: Int, count: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
