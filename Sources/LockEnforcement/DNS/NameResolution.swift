import LockCore

/// What one resolution run found for one name (A and AAAA together).
public struct NameResolution: Sendable, Equatable {
    /// Every address found, sorted and unique; may be empty (no such name, or no records).
    public var addresses: [IPNetwork]
    /// Set when some query for the name failed (timeout, server failure). The addresses found
    /// are still used, but nothing previously known for the name is forgotten, so that a DNS
    /// outage can never lift a block.
    public var error: String?

    /// Creates a result; addresses are sorted and de-duplicated.
    public init(addresses: some Sequence<IPNetwork> = [], error: String? = nil) {
        self.addresses = Array(Set(addresses)).sorted()
        self.error = error
    }

    /// True when every query for the name was answered.
    public var isComplete: Bool { error == nil }

    /// True when every address found is one a blocking resolver answers with (0.0.0.0, ::,
    /// loopback): a sinkhole, never where the name really is.
    public var isSinkholed: Bool {
        !addresses.isEmpty && addresses.allSatisfy { address in NFTablesRuleset.neverBlockedWhenResolved.contains { $0.contains(address) } }
    }

    /// This result without its sinkhole answers: never where a name is, so never counted as its
    /// address; a name left with nothing else failed (and is asked again soon).
    public var withoutSinkholes: NameResolution {
        let real = addresses.filter { address in !NFTablesRuleset.neverBlockedWhenResolved.contains { $0.contains(address) } }
        guard real.count != addresses.count else { return self }
        guard real.isEmpty else { return NameResolution(addresses: real, error: error) }
        let answered = addresses.map(\.description).joined(separator: ", ")
        return NameResolution(addresses: [], error: error ?? "the DNS server answered only \(answered), a blocking answer, not its address")
    }
}
