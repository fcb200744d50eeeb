import Foundation
import LockCore
import Testing

/// Imported lists inside a session's rules: how they block, what exceptions do to them, and
/// what a strict session keeps when a list changes.
@Suite struct BlocklistRulesTests {
    static func list(_ name: String, version: String = "0000000000000001", block: [String], allow: [String] = []) -> Blocklist {
        let info = BlocklistInfo(
            name: name, version: version, source: "-", importedAt: Date(timeIntervalSince1970: 0),
            names: block.count, exceptions: allow.count, report: BlocklistReport())
        return Blocklist(reference: info.reference, block: DomainSuffixSet(block), allow: DomainSuffixSet(allow), info: info)
    }

    static let ads = list("ads", block: ["ads.example", "tracker.example.net"], allow: ["ok.ads.example"])

    static func resolve(_ lists: [Blocklist]) -> (BlocklistReference) -> Blocklist? {
        { reference in lists.first { $0.reference == reference } }
    }

    @Test func aListBlocksItsNamesWithEverySubdomainUnlessAnExceptionIsAsSpecific() {
        let rules = BlockRules(
            block: DomainSet(["reddit.com"]), allow: DomainSet(["keep.tracker.example.net"]),
            lists: [Self.ads.reference])
        let resolve = Self.resolve([Self.ads])
        #expect(rules.blockingRule(for: "m.ads.example", lists: resolve)! == ("ads.example", "ads"))
        #expect(rules.blockingRule(for: "ok.ads.example", lists: resolve) == nil, "the list's own exception")
        #expect(rules.blockingRule(for: "x.ok.ads.example", lists: resolve) == nil)
        #expect(rules.blockingRule(for: "keep.tracker.example.net", lists: resolve) == nil, "the profile's exception")
        #expect(rules.blockingRule(for: "a.tracker.example.net", lists: resolve)?.rule == "tracker.example.net")
        #expect(rules.blockingRule(for: "old.reddit.com", lists: resolve)! == ("reddit.com", nil))
        #expect(rules.blockingRule(for: "example.net", lists: resolve) == nil)
        #expect(rules.blockingRule(for: "m.ads.example", lists: { _ in nil }) == nil, "a list that is not loaded blocks nothing")
        #expect(rules.blockingRule(for: "m.ads.example") == nil, "exact-name mechanisms never see list names")
    }

    @Test func aListAloneMakesTheBlockBlockTheNetworkButAddsNoExactNames() {
        let rules = BlockRules(block: DomainSet([]), lists: [Self.ads.reference])
        let desired = DesiredBlock(rules: [rules])
        #expect(desired.blocksNetwork)
        #expect(rules.exactNames.isEmpty)
        #expect(desired.verdict(for: "m.ads.example", lists: Self.resolve([Self.ads])) == "ads.example")
        #expect(desired.verdict(for: "m.ads.example") == nil)
    }

    @Test func allowlistProfilesHoldNoLists() throws {
        #expect(BlockRules(block: DomainSet(["docs.example"]), mode: .allowlist, lists: [Self.ads.reference]).lists.isEmpty)
        let profile = Profile(name: "only", domains: [], mode: .allowlist, lists: ["ads"])
        #expect(throws: FieldError.self) { try profile.validate(against: ServiceCatalog()) }
        #expect(throws: FieldError.self) { try Profile(name: "p", lists: ["Bad Name"]).validate(against: ServiceCatalog()) }
        try Profile(name: "p", lists: ["ads", "ads"]).validate(against: ServiceCatalog())
        #expect(Profile(name: "p", lists: ["ads", "ads"]).lists == ["ads"])
    }

    @Test func strictMergesKeepEveryListVersionAndNewExceptionsCannotUnblockListNames() {
        let old = Self.list("ads", version: "0000000000000001", block: ["ads.example", "gone.example"])
        let new = Self.list("ads", version: "0000000000000002", block: ["ads.example"])
        let running = BlockRules(block: DomainSet(["reddit.com"]), lists: [old.reference])
        let fresh = BlockRules(block: DomainSet(["reddit.com"]), allow: DomainSet(["x.gone.example"]), lists: [new.reference])
        let merged = running.merged(with: fresh, lists: Self.resolve([old, new]))
        #expect(merged.lists == [old.reference, new.reference])
        #expect(merged.allow.isEmpty, "the new exception would unblock a name the old version blocks")
        #expect(merged.blockingRule(for: "x.gone.example", lists: Self.resolve([old, new]))?.rule == "gone.example")
        #expect(merged.droppingLists { $0 == old.reference }.lists == [new.reference])
    }

    @Test func aNewVersionCoversAnOldOneOnlyWhenItBlocksEveryOldName() {
        let old = Self.list("ads", version: "0000000000000001", block: ["a.example", "b.example"])
        #expect(old.isCovered(by: Self.list("ads", version: "0000000000000002", block: ["a.example", "b.example", "c.example"])))
        #expect(old.isCovered(by: Self.list("ads", version: "0000000000000003", block: ["example"])), "a parent covers its names")
        #expect(!old.isCovered(by: Self.list("ads", version: "0000000000000004", block: ["a.example"])))
        #expect(
            !old.isCovered(by: Self.list("ads", version: "0000000000000005", block: ["a.example", "b.example"], allow: ["x.b.example"])),
            "a new exception under an old name lets that name through")
    }

    @Test func sessionsSavedBeforeListsExistedStillLoadAndListsRoundTrip() throws {
        let rules = BlockRules(block: DomainSet(["a.example"]), lists: [Self.ads.reference])
        var saved = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(rules)) as? [String: Any])
        #expect(saved["lists"] != nil)
        #expect(try JSONDecoder().decode(BlockRules.self, from: JSONEncoder().encode(rules)) == rules)
        saved["lists"] = nil
        let decoded = try JSONDecoder().decode(BlockRules.self, from: JSONSerialization.data(withJSONObject: saved))
        #expect(decoded.lists.isEmpty && decoded.block == rules.block)
        #expect(!String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self).contains("lists"))
    }

    @Test func parserRefusesWhatTheCallerRefusesWithTheReasonCounted() {
        var parser = BlocklistParser(normalize: { $0.lowercased() }, refuse: { $0 == "co.uk" ? .publicSuffix : nil })
        var names: [String] = []
        parser.parse(Array("co.uk\n||co.uk^\n0.0.0.0 co.uk a.co.uk\nb.co.uk\n".utf8)) { names.append($0.name) }
        let report = parser.finish { names.append($0.name) }
        #expect(names == ["a.co.uk", "b.co.uk"])
        #expect(report.skipped[.publicSuffix] == 3)
        #expect(report.examples[.publicSuffix]?.first?.line == 1)
    }
}
