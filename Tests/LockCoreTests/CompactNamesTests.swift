import Foundation
import LockCore
import Testing

/// The compact name lists: a block's exact names (`NameList`) and a profile's domains (`DomainList`).
@Suite struct CompactNamesTests {
    @Test func aNameListIsSortedUniqueAndSearchable() {
        let list = NameList(["b.example", "a.example", "www.a.example", "a.example", "xn--bcher-kva.example"])
        #expect(Array(list) == ["a.example", "b.example", "www.a.example", "xn--bcher-kva.example"])
        #expect(list == ["www.a.example", "b.example", "a.example", "xn--bcher-kva.example"])
        for name in list { #expect(list.contains(name)) }
        for absent in ["", "a.exampl", "a.example.", "c.example", "zzz", "a"] { #expect(!list.contains(absent), "\(absent)") }
        #expect(NameList().isEmpty && !NameList().contains("a.example"))
    }

    @Test func appendingOutOfOrderIsIgnoredSoTheListStaysSorted() {
        var list = NameList()
        for name in ["a.example", "c.example", "b.example", "c.example", "d.example"] { list.append(name) }
        #expect(Array(list) == ["a.example", "c.example", "d.example"])
    }

    @Test func sortedListsMergeWithoutRepeats() {
        let merged = NameList(merging: [["a.example", "m.example"], ["b.example", "m.example", "z.example"], [], ["a.example"]])
        #expect(Array(merged) == ["a.example", "b.example", "m.example", "z.example"])
        #expect(NameList(merging: []) == NameList())
        // Against a plain sort over random lists.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let lists = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                NameList(
                    (0..<Int.random(in: 0...30, using: &generator)).map { _ in "n\(Int.random(in: 0...40, using: &generator)).example" })
            }
            #expect(Array(NameList(merging: lists)) == Array(Set(lists.flatMap { Array($0) })).sorted())
        }
    }

    @Test func aNameListEncodesAsAnArrayOfStrings() throws {
        let list: NameList = ["b.example", "a.example"]
        let data = try JSONEncoder().encode(list)
        #expect(String(decoding: data, as: UTF8.self) == #"["a.example","b.example"]"#)
        #expect(try JSONDecoder().decode(NameList.self, from: data) == list)
    }

    @Test func aDomainListKeepsTheWrittenOrderWithoutRepeats() throws {
        let names = ["news.example", "a.example", "news.example", "xn--bcher-kva.example"].map(DomainName.init(normalized:))
        let list = DomainList(names)
        #expect(list.map(\.value) == ["news.example", "a.example", "xn--bcher-kva.example"])
        #expect(list.contains(DomainName(normalized: "a.example")))
        let data = try JSONEncoder().encode(list)
        #expect(try JSONDecoder().decode(DomainList.self, from: data) == list)
        #expect(Profile(name: "p", domains: names).domains == list)
    }
}

extension CompactNamesTests {
    @Test func namesCollectedInAnyOrderComeOutSortedAndUnique() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let names = (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                "n\(Int.random(in: 0...50, using: &generator)).example"
            }
            let list = NameList(collecting: { body in for name in names { body(name) } })
            #expect(Array(list) == Array(Set(names)).sorted())
            #expect(Array(NameList(addingWWWTwinsTo: list)) == Array(Set(names + names.map { "www." + $0 })).sorted())
            let mixed = NameList(names.map { Bool.random(using: &generator) ? "www." + $0 : $0 } + ["www.", "w.example", "www.www.a"])
            let twins = mixed.filter { !$0.hasPrefix("www.") }.map { "www." + $0 }
            #expect(Array(NameList(addingWWWTwinsTo: mixed)) == Array(Set(Array(mixed) + twins)).sorted())
        }
    }

    @Test func theFirstNamesAndSubsetsAgreeWithArrays() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let list = NameList(
                (0..<Int.random(in: 0...30, using: &generator)).map { _ in "n\(Int.random(in: 0...40, using: &generator)).example" })
            let count = Int.random(in: -1...35, using: &generator)
            let first = NameList(first: count, of: list)
            #expect(Array(first) == Array(list.prefix(max(0, count))))
            #expect(first.isSubset(of: list) && NameList().isSubset(of: list))
            let other = NameList(
                (0..<Int.random(in: 0...30, using: &generator)).map { _ in "n\(Int.random(in: 0...40, using: &generator)).example" })
            #expect(other.isSubset(of: list) == Set(other).isSubset(of: Set(list)), "\(other) in \(list)")
        }
    }

    @Test func aDomainListCollectedKeepsTheFirstOfEachNameInTheWrittenOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let names = (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                DomainName(normalized: "n\(Int.random(in: 0...30, using: &generator)).example")
            }
            let list = DomainList { add in for name in names { add(name) } }
            var seen = Set<DomainName>()
            #expect(Array(list) == names.filter { seen.insert($0).inserted })
            #expect(DomainList(list) == list)
            for name in names { #expect(list.contains(name)) }
            #expect(!list.contains(DomainName(normalized: "n99.example")) && !list.contains(DomainName(normalized: "n1.exampl")))
        }
    }
}
