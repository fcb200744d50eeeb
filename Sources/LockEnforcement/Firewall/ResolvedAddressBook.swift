import LockCore

/// The addresses each name has resolved to recently, so that a re-resolution can add new
/// addresses without dropping old ones that browsers and caches may still be using.
///
/// An address is kept until it has not been seen for `grace` in a *complete* resolution of its
/// name. A failed or partial resolution forgets nothing: a DNS outage must never lift a block.
/// Times are boot-clock instants, so wall-clock changes cannot expire anything early.
public struct ResolvedAddressBook: Sendable, Equatable {
    /// What is known about one name.
    public struct Entry: Sendable, Equatable {
        /// Each address with the last time a resolution returned it.
        public var lastSeen: [IPNetwork: BootTime] = [:]
        /// When the name last got a complete answer.
        public var lastComplete: BootTime?
        /// The error of the latest run, nil after a complete one.
        public var lastError: String?
    }

    /// How long an address stays after its last sighting.
    public let grace: Duration
    /// Known names and their addresses.
    public private(set) var entries: [String: Entry] = [:]

    /// Creates an empty book.
    public init(grace: Duration) {
        self.grace = grace
    }

    /// Merges the results of one resolution run taken at `now`.
    public mutating func record(_ results: [String: NameResolution], at now: BootTime) {
        for (name, result) in results {
            var entry = entries[name] ?? Entry()
            for address in result.addresses { entry.lastSeen[address] = now }
            if result.isComplete {
                let cutoff = now - grace
                entry.lastSeen = entry.lastSeen.filter { $0.value >= cutoff }
                entry.lastComplete = now
                entry.lastError = nil
            } else {
                entry.lastError = result.error
            }
            entries[name] = entry
        }
    }

    /// Clears the recorded error of a name (addresses restored from saved state are not a
    /// failure worth reporting).
    public mutating func clearError(for name: String) {
        entries[name]?.lastError = nil
    }

    /// Forgets names that are no longer wanted (their block was lifted on purpose).
    public mutating func retain(names: Set<String>) {
        entries = entries.filter { names.contains($0.key) }
    }

    /// Every known address of the given names, sorted and unique.
    public func addresses(for names: some Sequence<String>) -> [IPNetwork] {
        var result = Set<IPNetwork>()
        for name in names {
            guard let entry = entries[name] else { continue }
            result.formUnion(entry.lastSeen.keys)
        }
        return result.sorted()
    }

    /// Names whose latest resolution failed, with the error.
    public var failures: [String: String] {
        entries.compactMapValues(\.lastError)
    }
}
