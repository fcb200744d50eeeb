import CICUBridge

/// UTS 46 processing by ICU with the options of the WHATWG URL standard's "domain to ASCII"
/// (what browsers look up): nontransitional processing (`ß`, `ς`, ZWJ and ZWNJ are kept),
/// CheckBidi, CheckJoiners, no STD3 restriction (ASCII such as `_` passes; the URL host parser
/// and our own rules decide about it) and no hyphen or length checks (CheckHyphens and
/// VerifyDnsLength are off in the URL standard; `DomainName.checkASCIIRules` applies ours).
///
/// `xn--` labels are decoded and validated as if their Unicode form had been typed, so punycode
/// that no browser would produce (invalid punycode, disallowed or unnormalised characters such
/// as the spoofing character in `xn--a-ecp.ru`) is refused.
enum UTS46 {
    /// ICU's error bits (`UIDNA_ERROR_…`).
    struct Errors: OptionSet, Sendable {
        let rawValue: UInt32
        static let emptyLabel = Errors(rawValue: 0x1)
        static let labelTooLong = Errors(rawValue: 0x2)
        static let domainNameTooLong = Errors(rawValue: 0x4)
        static let leadingHyphen = Errors(rawValue: 0x8)
        static let trailingHyphen = Errors(rawValue: 0x10)
        static let hyphen34 = Errors(rawValue: 0x20)
        static let leadingCombiningMark = Errors(rawValue: 0x40)
        static let disallowed = Errors(rawValue: 0x80)
        static let punycode = Errors(rawValue: 0x100)
        static let labelHasDot = Errors(rawValue: 0x200)
        static let invalidACELabel = Errors(rawValue: 0x400)
        static let bidi = Errors(rawValue: 0x800)
        static let contextJ = Errors(rawValue: 0x1000)

        /// The checks the URL standard switches off (CheckHyphens, VerifyDnsLength = false).
        static let ignoredByURLStandard: Errors = [
            .emptyLabel, .labelTooLong, .domainNameTooLong,
            .leadingHyphen, .trailingHyphen, .hyphen34,
        ]
    }

    /// A conversion's output and the errors that matter to the URL standard.
    struct Result {
        var text: String
        var errors: Errors
        var isValid: Bool { errors.isEmpty }
    }

    // Opened once; ICU documents a UTS46 instance as immutable and usable from any thread.
    private nonisolated(unsafe) static let idna: UnsafeRawPointer? = cicu_url_standard_idna()

    /// ToASCII of a whole name.
    static func toASCII(_ name: String) -> Result { convert(name, cicu_name_to_ascii) }

    /// ToUnicode of a whole name (the mapped, decoded form; invalid parts become U+FFFD).
    static func toUnicode(_ name: String) -> Result { convert(name, cicu_name_to_unicode) }

    private typealias Conversion = (
        UnsafeRawPointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<CChar>?, Int32,
        UnsafeMutablePointer<UInt32>?
    ) -> Int32

    private static func convert(_ name: String, _ conversion: Conversion) -> Result {
        // Without ICU every name is refused: accepting unprocessed text would store names that
        // browsers never look up.
        guard let idna else { return Result(text: "", errors: .disallowed) }
        let input = Array(name.utf8).map { CChar(bitPattern: $0) }
        var capacity = max(64, input.count * 4 + 16)
        while true {
            var output = [CChar](repeating: 0, count: capacity)
            var errors: UInt32 = 0
            let written = conversion(idna, input, Int32(clamping: input.count), &output, Int32(clamping: capacity), &errors)
            guard written >= 0 else { return Result(text: "", errors: .disallowed) }
            if Int(written) >= capacity {
                capacity = Int(written) + 1
                continue
            }
            let text = String(decoding: output[..<Int(written)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return Result(text: text, errors: Errors(rawValue: errors).subtracting(.ignoredByURLStandard))
        }
    }
}
