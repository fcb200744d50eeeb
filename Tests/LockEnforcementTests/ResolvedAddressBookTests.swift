import LockCore
import Testing

@testable import LockEnforcement

@Suite struct ResolvedAddressBookTests {
    private func net(_ text: String) -> IPNetwork { try! IPNetwork(parsing: text) }
    private func at(_ seconds: Double) -> BootTime { BootTime(seconds: seconds) }

    @Test func rotatedAddressesStayForTheGracePeriod() {
        var book = ResolvedAddressBook(grace: .seconds(3600))
        book.record(["cdn.example": NameResolution(addresses: [net("192.0.2.1")])], at: at(0))
        book.record(["cdn.example": NameResolution(addresses: [net("192.0.2.2")])], at: at(300))
        #expect(book.addresses(for: ["cdn.example"]).map(\.description) == ["192.0.2.1", "192.0.2.2"])
        book.record(["cdn.example": NameResolution(addresses: [net("192.0.2.2")])], at: at(3600))
        #expect(book.addresses(for: ["cdn.example"]).count == 2, "exactly at the limit it is still kept")
        book.record(["cdn.example": NameResolution(addresses: [net("192.0.2.2")])], at: at(3601))
        #expect(book.addresses(for: ["cdn.example"]).map(\.description) == ["192.0.2.2"])
    }

    @Test func failuresForgetNothing() {
        var book = ResolvedAddressBook(grace: .seconds(60))
        book.record(["a.example": NameResolution(addresses: [net("192.0.2.1"), net("2001:db8::1")])], at: at(0))
        book.record(["a.example": NameResolution(error: "A: timed out")], at: at(10_000))
        #expect(book.addresses(for: ["a.example"]).count == 2)
        #expect(book.failures == ["a.example": "A: timed out"])
        // A partial answer adds what it found and still expires nothing.
        book.record(["a.example": NameResolution(addresses: [net("192.0.2.9")], error: "AAAA: SERVFAIL")], at: at(20_000))
        #expect(book.addresses(for: ["a.example"]).count == 3)
        // The next complete answer applies the grace period again and clears the error.
        book.record(["a.example": NameResolution(addresses: [net("192.0.2.9")])], at: at(20_030))
        #expect(book.addresses(for: ["a.example"]).map(\.description) == ["192.0.2.9"])
        #expect(book.failures.isEmpty)
        #expect(book.entries["a.example"]?.lastComplete == at(20_030))
    }

    @Test func nameWithoutAddressesExpiresAfterGrace() {
        var book = ResolvedAddressBook(grace: .seconds(60))
        book.record(["gone.example": NameResolution(addresses: [net("192.0.2.1")])], at: at(0))
        book.record(["gone.example": NameResolution()], at: at(30))
        #expect(book.addresses(for: ["gone.example"]).count == 1)
        book.record(["gone.example": NameResolution()], at: at(61))
        #expect(book.addresses(for: ["gone.example"]).isEmpty)
    }

    @Test func retainDropsNamesThatAreNoLongerBlocked() {
        var book = ResolvedAddressBook(grace: .seconds(60))
        book.record(
            [
                "a.example": NameResolution(addresses: [net("192.0.2.1")]),
                "b.example": NameResolution(addresses: [net("192.0.2.2")]),
            ], at: at(0))
        book.retain(names: ["b.example"])
        #expect(book.addresses(for: ["a.example", "b.example"]).map(\.description) == ["192.0.2.2"])
        #expect(book.entries.keys.sorted() == ["b.example"])
    }

    @Test func unionAcrossNamesIsSortedAndUnique() {
        var book = ResolvedAddressBook(grace: .seconds(60))
        book.record(
            [
                "a.example": NameResolution(addresses: [net("2001:db8::1"), net("192.0.2.1")]),
                "www.a.example": NameResolution(addresses: [net("192.0.2.1")]),
            ], at: at(0))
        #expect(
            book.addresses(for: ["a.example", "www.a.example", "unknown.example"]).map(\.description)
                == ["192.0.2.1", "2001:db8::1"])
    }
}
