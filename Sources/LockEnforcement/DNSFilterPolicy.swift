import LockCore

/// What the DNS filter blocks, in the compact form the forwarder asks on every query: for each
/// active session, its rules as `DomainSuffixSet`s. Immutable; the forwarder swaps whole
/// policies.
///
/// The verdict is exactly `DesiredBlock.verdict(for:)`: a blocklist session's most specific
/// rule blocks unless one of that session's own exceptions is at least as specific; an
/// allowlist session blocks every name it does not cover; a hand-built state without rules
/// blocks its `domains` exactly.
public final class DNSFilterPolicy: Sendable {
    private enum Component: Sendable {
        case blocklist(block: DomainSuffixSet, allow: DomainSuffixSet)
        case allowlist(DomainSuffixSet)
        case exact(DomainSuffixSet)
    }

    private let components: [Component]
    /// The rules each component was built from, to reuse it when the next state has them too.
    private let sources: [BlockRules?]

    /// Blocks nothing.
    public static let empty = DNSFilterPolicy(components: [], sources: [])

    private init(components: [Component], sources: [BlockRules?]) {
        self.components = components
        self.sources = sources
    }

    /// Builds the policy for `desired`. Sessions whose rules are unchanged since `previous`
    /// share its sets instead of building them again, so starting a small block next to a
    /// large list costs the small one only.
    ///
    /// Block sets keep names that a parent also covers (`collapsingCovered: false`): the most
    /// specific rule is what exceptions are weighed against and what `lockctl check` reports.
    ///
    /// `lists` are imported blocklists, already built (`BlocklistParser` into a
    /// `DomainSuffixSet.Builder`): each blocks its names with all their subdomains, and is shared,
    /// not copied.
    public convenience init(_ desired: DesiredBlock, lists: [DomainSuffixSet] = [], reusing previous: DNSFilterPolicy? = nil,
                            seed: UInt64 = DomainSuffixSet.Builder.defaultSeed) {
        var components: [Component] = lists.filter { !$0.isEmpty }.map { .blocklist(block: $0, allow: .empty) }
        var sources: [BlockRules?] = components.map { _ in nil }
        for rules in desired.rules {
            sources.append(rules)
            if let previous, let index = previous.sources.firstIndex(where: { $0 == rules }) {
                components.append(previous.components[index])
                continue
            }
            switch rules.mode {
            case .blocklist:
                guard !rules.block.isEmpty else { sources.removeLast(); continue }
                components.append(.blocklist(
                    block: DomainSuffixSet(rules.block.sorted, collapsingCovered: false, seed: seed),
                    allow: DomainSuffixSet(rules.allow.sorted, collapsingCovered: false, seed: seed)))
            case .allowlist:
                components.append(.allowlist(DomainSuffixSet(rules.block.sorted, seed: seed)))
            }
        }
        if desired.rules.isEmpty, !desired.domains.isEmpty {
            components.append(.exact(DomainSuffixSet(desired.domains, collapsingCovered: false, seed: seed)))
            sources.append(nil)
        }
        self.init(components: components, sources: sources)
    }

    /// True when it blocks nothing.
    public var isEmpty: Bool { components.isEmpty }

    /// Names held in all its sets.
    public var nameCount: Int {
        components.reduce(0) { total, component in
            switch component {
            case .blocklist(let block, let allow): total + block.count + allow.count
            case .allowlist(let set), .exact(let set): total + set.count
            }
        }
    }

    /// Bytes allocated by its sets.
    public var allocatedBytes: Int {
        components.reduce(0) { total, component in
            switch component {
            case .blocklist(let block, let allow): total + block.allocatedBytes + allow.allocatedBytes
            case .allowlist(let set), .exact(let set): total + set.allocatedBytes
            }
        }
    }

    /// The rule blocking `name` (canonical bytes: lowercase, labels separated by dots; case and
    /// a trailing dot are tolerated), or nil when it is to be forwarded. Allocates only the
    /// returned rule.
    public func verdict(_ name: UnsafeRawBufferPointer) -> String? {
        for component in components {
            switch component {
            case .blocklist(let block, let allow):
                guard let blocked = block.matchLength(name) else { continue }
                if let allowed = allow.matchLength(name), allowed >= blocked { continue }
                return Self.suffix(of: name, length: blocked)
            case .allowlist(let allowed):
                if allowed.matchLength(name) == nil { return BlockRules.notAllowed }
            case .exact(let set):
                var end = name.count
                if end > 0, name[end - 1] == UInt8(ascii: ".") { end -= 1 }
                if let length = set.matchLength(name), length == end { return Self.suffix(of: name, length: length) }
            }
        }
        return nil
    }

    /// `verdict` for a name as text.
    public func verdict(for name: String) -> String? {
        var text = name
        return text.withUTF8 { verdict(UnsafeRawBufferPointer($0)) }
    }

    private static func suffix(of name: UnsafeRawBufferPointer, length: Int) -> String {
        var end = name.count
        if end > 0, name[end - 1] == UInt8(ascii: ".") { end -= 1 }
        return String(unsafeUninitializedCapacity: length) { buffer in
            for index in 0..<length {
                let byte = name[end - length + index]
                buffer[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return length
        }
    }
}
