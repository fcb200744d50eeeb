@testable import LockNames

/// SplitMix64: a small generator whose sequence is fixed by its seed, so every run (and every
/// machine) tests the same inputs.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Names and pasted URLs in many scripts, with the traps the issue found: full-width forms,
/// ligatures, mixed case, joiners, bidi mixes, combining marks, `xn--` labels (valid, mutated and
/// random), IP literals, userinfo, backslashes, ports and percent-encoding.
struct OracleInputs {
    private var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    static func scalars(_ ranges: ClosedRange<UInt32>...) -> [String] {
        ranges.flatMap { $0.compactMap { Unicode.Scalar($0).map { String($0) } } }
    }
    static func characters(_ text: String) -> [String] { text.unicodeScalars.map { String($0) } }

    static let scripts: [(name: String, letters: [String], marks: [String])] = [
        ("latin", characters("abcdefghijklmnopqrstuvwxyz0123456789àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßœšžłđħıİĲǆ"), []),
        ("greek", scalars(0x03B1...0x03C9) + characters("άέήίόύώΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"), characters("\u{0301}\u{0308}")),
        ("cyrillic", scalars(0x0430...0x044F) + characters("ёіїєґАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"), []),
        (
            "arabic", characters("ابتثجحخدذرزسشصضطظعغفقكلمنهويىةءپچژگکی") + scalars(0x0660...0x0669, 0x06F0...0x06F9),
            characters("\u{064E}\u{064F}\u{0650}\u{0651}\u{0652}")
        ),
        ("hebrew", scalars(0x05D0...0x05EA) + characters("׳״"), characters("\u{05B7}\u{05B8}\u{05BC}")),
        (
            "devanagari", scalars(0x0915...0x0939, 0x0905...0x0914, 0x0966...0x096F),
            characters("\u{093E}\u{093F}\u{0940}\u{0941}\u{0942}\u{0947}\u{0948}\u{094B}\u{094C}\u{094D}\u{094D}\u{0902}\u{093C}")
        ),
        (
            "tamil", characters("அஆஇஈஉஊஎஏஐஒஓஔகஙசஞடணதநபமயரலவழளறனஜஷஸஹ"),
            characters("\u{0BBE}\u{0BBF}\u{0BC0}\u{0BC1}\u{0BC2}\u{0BC6}\u{0BC7}\u{0BC8}\u{0BCA}\u{0BCB}\u{0BCC}\u{0BCD}\u{0BCD}")
        ),
        (
            "thai", scalars(0x0E01...0x0E2E, 0x0E50...0x0E59) + characters("เแโใไ"),
            characters("\u{0E31}\u{0E34}\u{0E35}\u{0E36}\u{0E37}\u{0E38}\u{0E39}\u{0E47}\u{0E48}\u{0E49}\u{0E4A}\u{0E4B}\u{0E4C}ะาำ")
        ),
        (
            "khmer", scalars(0x1780...0x17A2),
            characters(
                "\u{17B6}\u{17B7}\u{17B8}\u{17B9}\u{17BA}\u{17BB}\u{17BC}\u{17BD}\u{17BE}\u{17BF}\u{17C0}\u{17C1}\u{17C2}\u{17C3}\u{17C4}\u{17C5}\u{17D2}\u{17D2}\u{17C6}\u{17C7}"
            )
        ),
        ("cjk", scalars(0x4E00...0x4FFF, 0x3041...0x3096, 0x30A1...0x30FA, 0xAC00...0xAD00) + ["ー", "々"], []),
        ("fullwidth", scalars(0xFF21...0xFF3A, 0xFF41...0xFF5A, 0xFF10...0xFF19, 0xFF66...0xFF9D) + ["－"], ["\u{FF9E}", "\u{FF9F}"]),
        ("ligatures", characters("ﬀﬁﬂﬃﬄﬅﬆ㎏℡™①㈱ℌ𝐀𝒜ǄǅĲŉſ") + characters("abcdefghij"), []),
        ("cherokee", scalars(0x13A0...0x13F5, 0xAB70...0xABBF), []),
    ]

    /// Characters that the issue or UTS 46 single out, sprinkled into labels.
    static let specials: [String] = [
        "\u{200D}", "\u{200C}", "\u{00AD}", "\u{FEFF}", "\u{FE0F}", "😀", "🎉", "☃", "·", "͵", "׳", "・", "\u{0301}", "ß", "ς",
        "İ", "_", "-", "-", "*", "$", "~", "!", "'", "\u{200F}", "\u{200E}", "⒈", "\u{00A0}", "\u{2024}", "．", "。", "｡",
        "%", "ǅ", "\u{0345}", "\u{1E9E}", "\u{E000}", "\u{FFFD}", "Ⅻ", "ﾞ", "\u{3000}",
    ]

    static let suffixes = [
        "com", "org", "net", "de", "ru", "jp", "cn", "in", "il", "ir", "th", "kh", "gr", "co.uk", "github.io", "ck", "www.ck",
        "xn--p1ai", "рф", "中国", "भारत", "இந்தியா", "السعودية", "ไทย", "kawasaki.jp", "blogspot.com", "app", "123", "0x1f",
        "localhost", "COM", "ｃｏｍ", "cat", "example", "公司.cn", "ایران",
    ]

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    mutating func label() -> String {
        let first = pick(Self.scripts)
        // A bidi mix: two scripts in one label.
        let second = chance(12) ? pick(Self.scripts) : first
        let length = chance(5) ? Int.random(in: 30...70, using: &random) : Int.random(in: 1...12, using: &random)
        var text = ""
        for index in 0..<length {
            let script = index >= length / 2 ? second : first
            if !script.marks.isEmpty, index > 0, chance(30) { text += pick(script.marks) } else { text += pick(script.letters) }
            if chance(4) { text += pick(Self.specials) }
        }
        if chance(20) { text = text.map { chance(50) ? $0.uppercased() : String($0) }.joined() }
        if chance(8) { text = pick(Self.specials) + text }
        if chance(6) { text += pick(Self.specials) }
        return text
    }

    mutating func aceLabel() -> String {
        let digits = Array("abcdefghijklmnopqrstuvwxyz0123456789-")
        if chance(50) {
            // A real encoding, possibly damaged in one place or in letter case.
            var ascii = UTS46.toASCII(label()).text
            guard ascii.hasPrefix("xn--") else { return "xn--" + ascii }
            if chance(60) {
                var characters = Array(ascii)
                let index = Int.random(in: 4..<characters.count, using: &random)
                characters[index] = pick(digits)
                ascii = String(characters)
            }
            if chance(20) { ascii = ascii.uppercased() }
            return ascii
        }
        return "xn--" + String((0..<Int.random(in: 0...12, using: &random)).map { _ in pick(digits) })
    }

    mutating func name() -> String {
        var labels: [String] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) { labels.append(chance(15) ? aceLabel() : label()) }
        if labels.isEmpty || chance(70) { labels.append(chance(15) ? aceLabel() : label()) }
        if chance(90) { labels.append(pick(Self.suffixes)) }
        if chance(15) { labels.insert(pick(["www", "WWW", "ｗｗｗ", "*"]), at: 0) }
        let separator = chance(8) ? pick(["。", "．", "｡"]) : "."
        var text = labels.joined(separator: separator)
        if chance(8) { text += "." }
        if chance(2) { text += "." }
        return text
    }

    mutating func ipLiteral() -> String {
        pick([
            "1.2.3.4", "0x7f.1", "127.1", "2130706433", "0177.0.0.1", "256.1.1.1", "1.2.3.4.5", "[::1]", "[2001:db8::1]",
            "[::ffff:1.2.3.4]", "[1:2]", "1.2.3.4.", "0x", "0x.example", "09.1.1.1", "1.0x", "４.３.２.１", "1。2。3。4",
            "\(Int.random(in: 0...300, using: &random)).\(Int.random(in: 0...300, using: &random)).0.1",
        ])
    }

    mutating func percentEncoded(_ host: String) -> String {
        var result = ""
        for byte in host.utf8 {
            if chance(30) || byte >= 0x80 && chance(50) {
                let hex = String(byte, radix: 16, uppercase: chance(50))
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            } else {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return result
    }

    mutating func url(host: String) -> String {
        var text = pick([
            "http://", "https://", "HTTPS://", "ws://", "wss://", "ftp://", "//", "https:", "https:\\\\", "http:/",
            "https:///", "",
        ])
        if chance(20) { text += pick(["user@", "user:pass@", "a@b@", "x%40y@", "@", ":@", "u:p:q@"]) }
        text += chance(10) ? percentEncoded(host) : host
        if chance(20) { text += pick([":80", ":8080", ":", ":65535", ":65536", ":0x50", ":443", ":00080", ":8a"]) }
        if chance(8) { text += pick(["\\@evil.com/", "@evil.com", "\\evil.com"]) }
        if chance(50) { text += pick(["/", "/r/x", "?q=1", "#f", "\\x", "/a b", "/p?q#f", "?", "#"]) }
        return text
    }

    /// `count` inputs; the same ones for the same seed.
    mutating func make(count: Int) -> [String] {
        var inputs: [String] = []
        while inputs.count < count {
            var host = chance(5) ? ipLiteral() : name()
            if chance(3) { host = pick([" ", "\t", "\n"]) + host }
            if chance(35) { host = url(host: host) }
            if chance(2) { host.insert(contentsOf: pick(["\t", "\n"]), at: host.index(host.startIndex, offsetBy: host.count / 2)) }
            inputs.append(host)
        }
        return inputs
    }
}
