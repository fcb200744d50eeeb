import Foundation
import LockCore
import TestSupport
import Testing

@testable import LockStore

/// How a session's rules are kept in SQLite: one string per list, and rows of before.
@Suite struct StoredRulesTests {
    @Test func rulesRoundTripAsOneStringPerList() throws {
        let rules = BlockRules(
            block: DomainSet(["a.example", "www.a.example", "b.example"]), allow: DomainSet([]),
            addresses: [try IPNetwork(parsing: "192.0.2.0/24"), try IPNetwork(parsing: "2001:db8::1")])
        let data = try StateStore.encoder.encode(StoredRules(rules))
        let text = String(decoding: data, as: UTF8.self)
        // Decoding fails when a list is written as an array, as rows were before.
        let lists = try JSONDecoder().decode(OneStringPerList.self, from: data)
        #expect(lists.block.split(separator: "\n").sorted() == ["a.example", "b.example", "www.a.example"], "\(text)")
        #expect(lists.allow == "" && lists.addresses.split(separator: "\n") == ["192.0.2.0/24", "2001:db8::1"], "\(text)")
        let back = try StateStore.decoder.decode(StoredRules.self, from: data).rules()
        #expect(back == rules)
    }

    @Test func rowsWrittenAsArraysStillRead() throws {
        let old = Data(#"{"addresses":["198.51.100.7"],"allow":[],"block":["news.example"],"mode":"blocklist"}"#.utf8)
        let rules = try StateStore.decoder.decode(StoredRules.self, from: old).rules()
        #expect(rules.block.sorted == ["news.example"])
        #expect(rules.allow.sorted.isEmpty)
        #expect(rules.addresses == [try IPNetwork(parsing: "198.51.100.7")])
    }
}

/// The lists of a stored row as they must be written: each one string.
private struct OneStringPerList: Decodable {
    let block: String
    let allow: String
    let addresses: String
}
