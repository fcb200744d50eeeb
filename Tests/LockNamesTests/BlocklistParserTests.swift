import Foundation
import LockCore
import LockNames
import TestSupport
import Testing

@Suite struct BlocklistParserTests {
    /// The normaliser the daemon uses for lists (UTS 46, no public-suffix refusal), through the injected closure.
    static let parser = DomainNameParser(publicSuffixes: nil)
    static let normalize: @Sendable (String) -> String? = { try? parser.lookupName($0).value }

    private func parse(_ text: String) -> (blocked: [String], allowed: [String], report: BlocklistReport) {
        let (entries, report) = BlocklistParser.parse(Array(text.utf8), normalize: Self.normalize)
        return (entries.filter { !$0.isException }.map(\.name), entries.filter(\.isException).map(\.name), report)
    }

    @Test func hostsFormat() {
        let result = parse(
            """
            # a hosts-format list
            127.0.0.1 localhost
            ::1 localhost ip6-localhost ip6-loopback
            fe00::0 ip6-localnet
            255.255.255.255 broadcasthost
            0.0.0.0 0.0.0.0
            0.0.0.0 ads.example.com tracker.example.net   # two names on one line
            127.0.0.1\tADS.Example.ORG.
            :: six.example.com
            0.0.0.0 router
            93.184.216.34 redirected.example.com

            """)
        #expect(result.blocked == ["ads.example.com", "tracker.example.net", "ads.example.org", "six.example.com"])
        #expect(result.report.skipped == [.localName: 6, .address: 1, .singleLabel: 1, .redirect: 1])
        #expect(result.report.comments == 1)
        #expect(result.report.lines == 11)
        #expect(result.report.blocked == 4)
    }

    @Test func plainListsWithCRLFCaseAndTrailingDots() {
        let result = parse("Reddit.COM.\r\nwww.youtube.com\r\n*.tiktok.com\r\n  spaced.example  \r\nexample.com # why\r\n")
        #expect(result.blocked == ["reddit.com", "www.youtube.com", "tiktok.com", "spaced.example", "example.com"])
        #expect(result.report.skippedTotal == 0)
        #expect(result.report.lines == 5)
    }

    @Test func adblockRules() {
        let result = parse(
            """
            [Adblock Plus 2.0]
            ! Title: EasyList-ish
            ||ads.example.com^
            ||Tracker.Example.NET^|
            ||bare.example.org
            @@||good.ads.example.com^
            ||ads.example.com^$third-party
            @@||x.example^$document
            ||example.com/ads/*
            ||example.com^*/banner
            |https://example.com/x
            /ad[s]?\\d+/
            /banner/*.gif
            ##.ad-box
            example.com##.sponsored
            example.com#@#.sponsored
            ||ad*.example.com^
            example.com^
            ||example.com:8080^
            ## Section heading ##
            #####

            """)
        #expect(result.blocked == ["ads.example.com", "tracker.example.net", "bare.example.org"])
        #expect(result.allowed == ["good.ads.example.com"])
        #expect(result.report.skipped == [.options: 2, .path: 5, .regex: 1, .elementHiding: 3, .wildcard: 1, .unsupportedSyntax: 1])
        #expect(result.report.comments == 4)
        #expect(result.report.examples[.regex]?.first == BlocklistReport.Example(line: 12, text: "/ad[s]?\\d+/"))
        #expect(result.report.summary.first?.hasPrefix("5 skipped: rules for URL paths") == true)
    }

    @Test func internationalNamesBecomePunycode() {
        let result = parse("bücher.example\n0.0.0.0 BÜCHER.example\n||münchen.de^\n")
        #expect(result.blocked == ["xn--bcher-kva.example", "xn--bcher-kva.example", "xn--mnchen-3ya.de"])
    }

    @Test func invalidNamesAreCountedWithExamples() {
        let result = parse(
            """
            bad_name.example.com
            -leading.example.com
            a..b.example
            192.168.1.1
            2001:db8::1
            single
            x.localhost
            \(String(repeating: "a", count: 64)).com
            under.score_.com

            """)
        #expect(result.blocked.isEmpty)
        #expect(result.report.skipped[.invalidName] == 6)
        #expect(result.report.skipped[.address] == 2)
        #expect(result.report.skipped[.singleLabel] == 1)
        #expect(result.report.examples[.invalidName]?.count == 3, "a few examples, not all")
        #expect(result.report.examples[.invalidName]?.map(\.line) == [1, 2, 3])
    }

    @Test func fastPathAgreesWithTheNormaliser() {
        // Names the parser takes without calling the normaliser must be exactly what it would return.
        var calls: [String] = []
        let names = ["a.com", "a-b.c-d.example", "x1.y2.z3", "0a.com", String(repeating: "l", count: 63) + ".example"]
        var parser = BlocklistParser(normalize: {
            calls.append($0)
            return try? Self.parser.lookupName($0).value
        })
        var emitted: [String] = []
        parser.parse(Array(names.joined(separator: "\n").utf8)) { emitted.append($0.name) }
        _ = parser.finish { emitted.append($0.name) }
        #expect(emitted == names.map { try! Self.parser.lookupName($0).value })
        #expect(calls.isEmpty)
    }

    @Test func emptyAndCommentOnlyInputs() {
        #expect(parse("").report == BlocklistReport())
        #expect(parse("").blocked.isEmpty)
        let comments = parse("# one\n! two\n\n   \n[Adblock]\n#")
        #expect(comments.blocked.isEmpty)
        #expect(comments.report.comments == 6)
        #expect(comments.report.skippedTotal == 0)
    }

    @Test func binaryJunkNULsAndInvalidUTF8() {
        var bytes = Array("good.example\n".utf8)
        bytes += [0x00, 0x01, 0x02, 0xff, 0xfe, 0x0a]  // control bytes and invalid UTF-8
        bytes += Array("nul\u{0}.example\n".utf8)
        bytes += [0xc3, 0x28, 0x2e, 0x63, 0x6f, 0x6d, 0x0a]  // invalid two-byte sequence + ".com"
        bytes += Array("after.example".utf8)  // no final newline
        let (entries, report) = BlocklistParser.parse(bytes, normalize: Self.normalize)
        #expect(entries.map(\.name) == ["good.example", "after.example"])
        #expect(report.skipped == [.notText: 3])
        #expect(report.examples[.notText]?.first?.text == "\\x00\\x01\\x02\\xff\\xfe")

        var random = SplitMix64(state: 7)
        let junk = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let parsed = BlocklistParser.parse(junk, normalize: Self.normalize)
        let newlines = junk.filter { $0 == 0x0a }.count
        #expect(parsed.report.lines == newlines + (junk.last == 0x0a ? 0 : 1))
        #expect(parsed.report.skipped[.notText, default: 0] > 0)
    }

    @Test func hugeLinesAreSkippedWithoutBeingKept() {
        var parser = BlocklistParser(maximumLineLength: 4096, normalize: Self.normalize)
        var names: [String] = []
        parser.parse(Array("before.example\n".utf8)) { names.append($0.name) }
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        for _ in 0..<16 { parser.parse(chunk) { names.append($0.name) } }  // one 1 MiB line, fed in pieces
        parser.parse(Array(".com\nafter.example\n".utf8)) { names.append($0.name) }
        let report = parser.finish { names.append($0.name) }
        #expect(names == ["before.example", "after.example"])
        #expect(report.skipped == [.tooLong: 1])
        #expect(report.lines == 3)
        #expect(report.examples[.tooLong]?.first?.text == String(repeating: "a", count: BlocklistReport.exampleLength - 1) + "…")

        // The same line in one piece, and a last line without newline that is too long.
        let single = BlocklistParser.parse(
            Array((String(repeating: "b", count: 1 << 20) + "\nok.example\n" + String(repeating: "c", count: 5000)).utf8),
            normalize: Self.normalize)
        #expect(single.entries.map(\.name) == ["ok.example"])
        #expect(single.report.skipped == [.tooLong: 2])
    }

    @Test func linesSplitAcrossChunksAtEveryPosition() {
        let text = "0.0.0.0 a.example b.example\r\n||c.example^\r\n@@||d.example^\r\ne.example"
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var parser = BlocklistParser(normalize: Self.normalize)
            var entries: [BlocklistEntry] = []
            parser.parse(bytes[..<cut]) { entries.append($0) }
            parser.parse(bytes[cut...]) { entries.append($0) }
            _ = parser.finish { entries.append($0) }
            #expect(
                entries == [
                    BlocklistEntry(name: "a.example"), BlocklistEntry(name: "b.example"), BlocklistEntry(name: "c.example"),
                    BlocklistEntry(name: "d.example", isException: true), BlocklistEntry(name: "e.example"),
                ], "cut at \(cut)")
        }
    }

    @Test func aByteOrderMarkIsIgnored() {
        let result = parse("\u{FEFF}bom.example\n")
        #expect(result.blocked == ["bom.example"])
    }

    @Test func feedsASuffixSetBuilder() {
        let builder = DomainSuffixSet.Builder()
        var parser = BlocklistParser(normalize: Self.normalize)
        parser.parse(Array("0.0.0.0 a.reddit.com\n||reddit.com^\nx.example\n".utf8)) { builder.insert($0.name) }
        _ = parser.finish { builder.insert($0.name) }
        #expect(builder.build().sorted == ["reddit.com", "x.example"])
    }
}

extension BlocklistParserTests {
    /// Lines of the shapes the byte-level fast path takes, beside variants only the general path
    /// takes: both must give what the general path alone would (checked through the normaliser
    /// counting its calls: the fast path never calls it).
    @Test func fastAndGeneralPathsAgree() {
        let cases: [(String, [String], [BlocklistSkipReason: Int])] = [
            ("0.0.0.0 A.Example.COM. b.example", ["a.example.com", "b.example"], [:]),
            ("127.0.0.1 a.example # comment", ["a.example"], [:]),
            ("127.0.0.2 a.example", ["a.example"], [:]),  // a sinkhole too, taken by the general path
            (":: a.example\t b.example", ["a.example", "b.example"], [:]),
            ("0.0.0.0 localhost.localdomain", [], [.localName: 1]),
            ("0.0.0.0 a.localhost", [], [.invalidName: 1]),
            ("0.0.0.0 a.b.c.d.e.f.g.h i.j", ["a.b.c.d.e.f.g.h", "i.j"], [:]),
            ("0.0.0.0 1.2.3.4", [], [.address: 1]),
            ("0.0.0.0 a.com#x", ["a.com"], [:]),  // the normaliser reads "#x" as a URL fragment
            ("||A.example^", ["a.example"], [:]),
            ("||a.example^|", ["a.example"], [:]),
            ("||a.example", ["a.example"], [:]),
            ("||a.example|", ["a.example"], [:]),
            ("||a.example^ # not a comment in AdBlock", [], [.unsupportedSyntax: 1]),
            ("||a.example^^", [], [.unsupportedSyntax: 1]),
            ("plain.EXAMPLE..", ["plain.example"], [:]),
            ("xn--bcher-kva.example", ["xn--bcher-kva.example"], [:]),
            ("ab--cd.example", ["ab--cd.example"], [:]),
        ]
        for (line, names, skipped) in cases {
            let (entries, report) = BlocklistParser.parse(Array(line.utf8), normalize: Self.normalize)
            #expect(entries.map(\.name) == names, "\(line)")
            #expect(report.skipped == skipped.filter { $0.value > 0 }, "\(line)")
        }
    }
}
