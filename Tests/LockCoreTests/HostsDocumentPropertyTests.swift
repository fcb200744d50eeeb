import Foundation
import LockCore
import Testing

/// Random user content, random names, random damage to the section: the user's bytes always
/// come back exactly, and no line we wrote is ever taken for the user's.
@Suite struct HostsDocumentPropertyTests {
    /// SplitMix64: deterministic, so a failure names a seed that reproduces it.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    struct Line {
        var content: [UInt8]
        var terminator: [UInt8]
    }

    static let userLines: [String] = [
        "127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback", "# The following lines are desirable for IPv6",
        "", "   ", "\t10.0.0.1\tprinter  # the office printer", "0.0.0.0 ads.example", "0.0.0.0 tracker.example www.tracker.example",
        ":: ads.example", "192.168.1.1 router router.", "#0.0.0.0 commented.example", "# BEGIN something else", "#END",
        "# END simplylock extra words", "# simplylock", "10.1.2.3 reddit.com # mine", "fe80::1%lo0 localhost",
    ]
    static let blockable = [
        "reddit.com", "www.reddit.com", "news.ycombinator.com", "a.b", "use-application-dns.net",
        "xn--bcher-kva.example", "very-long-label-" + String(repeating: "q", count: 40) + ".example",
        // 253 characters: too long to share a line with its trailing-dot form.
        String(repeating: "a", count: 63) + "." + String(repeating: "b", count: 63) + "."
            + String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 57) + ".com",
    ]

    static func randomUserLine(_ random: inout Random, ownShape: Bool) -> [UInt8] {
        switch random.below(ownShape ? 5 : 4) {
        case 0:
            // Bytes that are not UTF-8, and control characters other than line ends.
            return (0..<(1 + random.below(12))).map { _ in
                var byte = UInt8(random.below(256))
                while byte == 0x0A || byte == 0x0D { byte = UInt8(random.below(256)) }
                return byte
            }
        case 1:
            return Array("\(random.below(256)).\(random.below(256)).0.\(random.below(256)) host\(random.below(1000)).lan".utf8)
        case 4:
            // A line of the very shape we write, written by the user: only knowledge of the
            // user's part can tell it from ours.
            let name = "mine\(random.below(100)).example"
            return Array("\(random.chance(50) ? "0.0.0.0" : "::") \(name) \(name).".utf8)
        default:
            return Array(random.pick(userLines).utf8)
        }
    }

    static func randomUser(_ random: inout Random, ownShape: Bool) -> [UInt8] {
        let crlf = random.chance(30)
        var bytes: [UInt8] = []
        let count = random.below(8)
        for index in 0..<count {
            bytes += randomUserLine(&random, ownShape: ownShape)
            let last = index == count - 1
            if !last || random.chance(70) { bytes += crlf && !random.chance(10) ? [13, 10] : [10] }
        }
        return bytes
    }

    static func split(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            let end = index > start && bytes[index - 1] == 0x0D ? index - 1 : index
            lines.append(Line(content: Array(bytes[start..<end]), terminator: Array(bytes[end...index])))
            start = index + 1
        }
        if start < bytes.count { lines.append(Line(content: Array(bytes[start...]), terminator: [])) }
        return lines
    }

    static func join(_ lines: [Line]) -> [UInt8] { lines.flatMap { $0.content + $0.terminator } }

    static func isMarker(_ content: [UInt8]) -> Bool {
        let words = String(decoding: content, as: UTF8.self).lowercased()
            .replacingOccurrences(of: "#", with: "# ").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        return words.count == 3 && words[0] == "#" && (words[1] == "begin" || words[1] == "end") && words[2] == "simplylock"
    }

    static let beginSpellings = ["# BEGIN simplylock", "#BEGIN simplylock", "  #\tbegin   SimplyLock ", "# BEGIN simplylock\r"]
    static let endSpellings = ["# END simplylock", "#END simplylock", "\t# end SIMPLYLOCK", "# END  simplylock \r"]

    /// Applies one random damage to `lines`, whose managed section spans `section` (updated).
    /// Inserted lines that are not markers get a unique text, listed in `inserted`.
    static func damage(
        _ lines: inout [Line], section: inout ClosedRange<Int>?, inserted: inout Set<[UInt8]>,
        eol: [UInt8], _ random: inout Random
    ) {
        func insert(_ content: [UInt8], at index: Int) {
            if index == lines.count, let last = lines.indices.last, lines[last].terminator.isEmpty {
                lines[last].terminator = eol
                lines.append(Line(content: content, terminator: []))
            } else {
                lines.insert(Line(content: content, terminator: eol), at: index)
            }
            if let range = section {
                if index <= range.lowerBound {
                    section = (range.lowerBound + 1)...(range.upperBound + 1)
                } else if index <= range.upperBound {
                    section = range.lowerBound...(range.upperBound + 1)
                }
            }
        }
        func remove(at index: Int) {
            let wasLast = index == lines.count - 1
            let terminator = lines[index].terminator
            lines.remove(at: index)
            // Deleting the last line keeps the file's ending as it was.
            if wasLast, let last = lines.indices.last { lines[last].terminator = terminator }
            if let range = section {
                if range.count == 1 {
                    section = nil
                } else if index < range.lowerBound {
                    section = (range.lowerBound - 1)...(range.upperBound - 1)
                } else if index <= range.upperBound {
                    section = range.lowerBound...(range.upperBound - 1)
                }
            }
        }
        guard let range = section else {
            // Nothing of ours left to damage: a stray marker somewhere.
            insert(Array(random.pick(random.chance(50) ? beginSpellings : endSpellings).utf8), at: random.below(lines.count + 1))
            return
        }
        switch random.below(9) {
        case 0:
            // A line written inside the section (after BEGIN, before END).
            guard range.count >= 2 else { return }
            let text = Array("\(random.pick(["# note", "10.9.9.9 sneaky", "0.0.0.0 evil", "127.0.0.1"])) inserted-\(random.next())".utf8)
            inserted.insert(text)
            insert(text, at: range.lowerBound + 1 + random.below(range.count - 1))
        case 1:
            insert(Array(random.pick(endSpellings).utf8), at: random.below(lines.count + 1))
        case 2:
            insert(Array(random.pick(beginSpellings).utf8), at: random.below(lines.count + 1))
        case 3:
            if isMarker(lines[range.lowerBound].content) { remove(at: range.lowerBound) }
        case 4:
            if isMarker(lines[range.upperBound].content) { remove(at: range.upperBound) }
        case 5:
            // One of our lines deleted (never a marker: those have their own cases).
            let index = range.lowerBound + random.below(range.count)
            if !isMarker(lines[index].content) { remove(at: index) }
        case 6:
            // One of our lines duplicated in place.
            let index = range.lowerBound + random.below(range.count)
            if !isMarker(lines[index].content) { insert(lines[index].content, at: index) }
        case 7:
            // A marker respelled.
            for index in [range.lowerBound, range.upperBound] where isMarker(lines[index].content) {
                let begin = String(decoding: lines[index].content, as: UTF8.self).lowercased().contains("begin")
                lines[index].content = Array(random.pick(begin ? beginSpellings : endSpellings).utf8)
            }
        default:
            // Both markers and our comment deleted: `sed -i '/simplylock/d'`.
            for index in range.reversed() where String(decoding: lines[index].content, as: UTF8.self).lowercased().contains("simplylock") {
                remove(at: index)
            }
        }
    }

    /// One trial: renders, damages, parses (with or without the known user part) and checks.
    static func trial(seed: UInt64, withKnowledge: Bool) -> String? {
        var random = Random(state: seed)
        let user = randomUser(&random, ownShape: withKnowledge)
        let clean = HostsDocument(bytes: user)
        guard clean.userBytes == user, !clean.hadSection else { return "seed \(seed): generated user part has our lines" }
        let names = (0..<(1 + random.below(5))).map { _ in random.pick(blockable) }
        let written = clean.rendered(names: names)
        var lines = split(written)
        let begin = lines.firstIndex { isMarker($0.content) }!
        let end = lines.lastIndex { isMarker($0.content) }!
        let ours = Set(lines[begin...end].map(\.content))
        var section: ClosedRange<Int>? = begin...end
        var inserted = Set<[UInt8]>()
        let eol: [UInt8] = clean.usesCRLF ? [13, 10] : [10]
        // Without knowledge only single damages are decidable: a BEGIN deleted and another
        // written above user lines looks exactly like a section holding those lines.
        for _ in 0..<(withKnowledge ? 1 + random.below(3) : 1) {
            damage(&lines, section: &section, inserted: &inserted, eol: eol, &random)
        }
        let damaged = join(lines)
        // Without knowledge the shape alone decides only next to a marker: skip damage that
        // left none (the enforcer always passes the known user part in that case).
        if !withKnowledge, !lines.contains(where: { isMarker($0.content) }) { return nil }
        let own: ((String) -> Bool)? = withKnowledge && random.chance(50) ? { [names = Set(names)] in names.contains($0) } : nil
        let document = HostsDocument(bytes: damaged, knownUser: withKnowledge ? user : nil, ownNames: own)

        // Never keeps a line of ours as the user's.
        let kept = split(document.userBytes)
        if let line = kept.first(where: { ours.contains($0.content) || isMarker($0.content) }) {
            return
                "seed \(seed): kept our line \(String(decoding: line.content, as: UTF8.self)) from\n\(String(decoding: damaged, as: UTF8.self))"
        }
        // Never loses a user byte: apart from lines the damage wrote, the user part is exact.
        var remaining = kept
        while let index = remaining.lastIndex(where: { inserted.contains($0.content) }) {
            // A removed last line without a line end takes the line end before it along.
            if index == remaining.count - 1, remaining[index].terminator.isEmpty, index > 0 { remaining[index - 1].terminator = [] }
            remaining.remove(at: index)
        }
        let restored = join(remaining)
        if restored != user {
            return "seed \(seed): user part\n\(String(decoding: restored, as: UTF8.self).debugDescription)\n!=\n"
                + "\(String(decoding: user, as: UTF8.self).debugDescription)\nfrom\n\(String(decoding: damaged, as: UTF8.self).debugDescription)"
        }
        // Rebuilt, never adopted: the next rendering is one intact section.
        let rebuilt = HostsDocument(bytes: document.rendered(names: names), knownUser: withKnowledge ? user : nil, ownNames: own)
        if rebuilt.isDamaged || rebuilt.userBytes != document.userBytes {
            return "seed \(seed): the rebuilt file is not one intact section"
        }
        return nil
    }

    @Test("random user parts and damage, the user's part from the last sane reading known")
    func withKnownUserPart() {
        let failures = (1...3000).compactMap { Self.trial(seed: UInt64($0), withKnowledge: true) }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.first ?? "")")
    }

    @Test("random user parts and damage, the file alone (a marker left)")
    func fromTheFileAlone() {
        let failures = (1...3000).compactMap { Self.trial(seed: UInt64($0) &* 7919, withKnowledge: false) }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.first ?? "")")
    }
}
