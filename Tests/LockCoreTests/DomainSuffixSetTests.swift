import LockCore
import TestSupport
import Testing

@Suite struct DomainSuffixSetTests {
    @Test func matchesTheNameAndEverythingBelowIt() {
        let set = DomainSuffixSet(["reddit.com", "youtube.com", "ads.example.org"])
        #expect(set.count == 3)
        #expect(set.match("reddit.com") == "reddit.com")
        #expect(set.match("old.reddit.com") == "reddit.com")
        #expect(set.match("a.b.reddit.com") == "reddit.com")
        #expect(set.match("x.ads.example.org") == "ads.example.org")
        #expect(set.match("example.org") == nil)
        #expect(set.match("notreddit.com") == nil, "a suffix only matches at a label boundary")
        #expect(set.match("reddit.com.evil.net") == nil)
        #expect(set.match("com") == nil)
        #expect(set.match("") == nil)
        #expect(set.match(".") == nil)
    }

    @Test func ignoresCaseAndATrailingDot() {
        let set = DomainSuffixSet(["Reddit.COM."])
        #expect(set.sorted == ["reddit.com"])
        #expect(set.match("REDDIT.com.") == "reddit.com")
        #expect(set.match("M.Reddit.Com") == "reddit.com")
        #expect(set.containsExactly("reddit.com."))
        #expect(!set.containsExactly("m.reddit.com"))
    }

    @Test func matchLengthNeedsNoString() {
        let set = DomainSuffixSet(["reddit.com"])
        let length = Array("Old.Reddit.Com.".utf8).withUnsafeBytes { set.matchLength($0) }
        #expect(length == "reddit.com".utf8.count)
        #expect(Array("reddit.org".utf8).withUnsafeBytes { set.matchLength($0) } == nil)
    }

    @Test func collapsesNamesUnderAListedParent() {
        let set = DomainSuffixSet(["a.reddit.com", "b.c.reddit.com", "reddit.com", "x.y.z", "y.z", "q.y.z.org"])
        #expect(set.sorted == ["q.y.z.org", "reddit.com", "y.z"])
        #expect(set.match("a.reddit.com") == "reddit.com")
        let kept = DomainSuffixSet(["a.reddit.com", "reddit.com"], collapsingCovered: false)
        #expect(kept.sorted == ["a.reddit.com", "reddit.com"])
        #expect(kept.match("x.a.reddit.com") == "a.reddit.com", "the most specific rule wins")
        #expect(kept.match("b.reddit.com") == "reddit.com")
    }

    @Test func deduplicatesAndRefusesImpossibleNames() {
        let builder = DomainSuffixSet.Builder()
        #expect(builder.insert("a.com"))
        #expect(!builder.insert("A.com."), "same name")
        #expect(!builder.insert(""))
        #expect(!builder.insert("."))
        #expect(!builder.insert(String(repeating: "a", count: 254)))
        #expect(builder.insert(String(repeating: "a", count: 253)))
        let set = builder.build()
        #expect(set.count == 2)
        #expect(builder.count == 0, "building leaves the builder empty")
        #expect(DomainSuffixSet.empty.match("a.com") == nil)
        #expect(DomainSuffixSet.empty.isEmpty)
    }

    @Test func namesSpanningManyChunksSurviveCollapsing() {
        // ~60 bytes a name, 40 000 names: about nine 256 KiB chunks, half of them covered.
        let padding = String(repeating: "p", count: 50)
        var names: [String] = []
        for index in 0..<20_000 {
            names.append("\(padding)\(index).example")
            names.append("sub.\(padding)\(index).example")
        }
        names.append("example")
        var random = Self.generator()
        let set = DomainSuffixSet(names.shuffled(using: &random))
        #expect(set.sorted == ["example"])
        let parents = DomainSuffixSet(names.dropLast().shuffled(using: &random))
        #expect(parents.count == 20_000)
        #expect(parents.match("sub.\(padding)19999.example") == "\(padding)19999.example")
        #expect(parents.match("deep.sub.\(padding)0.example") == "\(padding)0.example")
        #expect(parents.allocatedBytes < 20_000 * 64 + 3 * (1 << 18) + 65_536 * 8)
    }

    private static func generator(_ seed: UInt64 = 42) -> SplitMix64 { SplitMix64(state: seed) }

    /// Names from a tiny alphabet, so random queries often hit rules and their subdomains.
    private static func randomName(_ random: inout SplitMix64, maxLabels: Int = 4) -> String {
        let labels = ["a", "b", "c", "ab", "Ba", "x-y", "c0"]
        let count = Int.random(in: 1...maxLabels, using: &random)
        var name = (0..<count).map { _ in labels.randomElement(using: &random)! }.joined(separator: ".")
        if Bool.random(using: &random) && Int.random(in: 0..<8, using: &random) == 0 { name += "." }
        return name
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func agreesWithASetOfStrings(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let names = (0..<Int.random(in: 0...300, using: &random)).map { _ in Self.randomName(&random) }
        let reference = Set(
            names.map { name -> String in
                var lowered = name.lowercased()
                if lowered.hasSuffix(".") { lowered.removeLast() }
                return lowered
            })
        func matches(_ query: String) -> [String] {
            var lowered = query.lowercased()
            if lowered.hasSuffix(".") { lowered.removeLast() }
            return DomainName.suffixes(of: lowered).map(String.init).filter(reference.contains)
        }
        let full = DomainSuffixSet(names, collapsingCovered: false, seed: seed)
        let collapsed = DomainSuffixSet(names, seed: seed &* 31)
        #expect(full.count == reference.count)
        #expect(full.sorted == reference.sorted())
        #expect(Set(collapsed.sorted) == reference.filter { matches($0).count == 1 })
        for _ in 0..<2_000 {
            let query = Self.randomName(&random, maxLabels: 6)
            let found = matches(query)
            #expect(full.match(query) == found.first, "most specific rule for \(query), seed \(seed)")
            #expect(collapsed.match(query) == found.last, "the one root rule for \(query), seed \(seed)")
            #expect(full.containsExactly(query) == reference.contains(String(query.lowercased().trimmingSuffixDot)))
        }
    }
}

extension String {
    fileprivate var trimmingSuffixDot: Substring { hasSuffix(".") ? dropLast() : self[...] }
}
