import LockCore

/// What the DNS filter blocks, in the compact form the forwarder asks on every query: for each
/// active session, its rules as `DomainSuffixSet`s and the imported lists it holds. Immutable;
/// the forwarder swaps whole policies.
///
/// The verdict is exactly `DesiredBlock.verdict(for:lists:)`: a blocklist session's most
/// specific rule (its own or one of its lists') blocks unless one of that session's own
/// exceptions, or for a list's rule one of the list's exceptions, is at least as specific; an
/// allowlist session blocks every name it does not cover; a hand-built state without rules
/// blocks its `domains` exactly.
public final class DNSFilterPolicy: Sendable {
    private enum Component: Sendable {
        case blocklist(block: DomainSuffixSet, allow: DomainSuffixSet, lists: [Blocklist])
        case allowlist(DomainSuffixSet)
        case exact(DomainSuffixSet)
    }

    private let components: [Component]
    /// The rules each component was built from, to reuse it when the next state has them too.
    private let sources: [BlockRules?]
    /// Versions of lists sessions hold that `resolve` could not find (they block nothing).
    public let missingLists: [BlocklistReference]

    /// Blocks nothing.
    public static let empty = DNSFilterPolicy(components: [], sources: [], missingLists: [])

    private init(components: [Component], sources: [BlockRules?], missingLists: [BlocklistReference]) {
        self.components = components
        self.sources = sources
        self.missingLists = missingLists
    }

    /// Builds the policy for `desired`. Sessions whose rules are unchanged since `previous`
    /// share its sets instead of building them again, so starting a small block next to a
    /// large list costs the small one only.
    ///
    /// Block sets keep names that a parent also covers (as `DomainSet` does): the most specific
    /// rule is what exceptions are weighed against and what `lockctl check` reports.
    ///
    /// Imported lists are never copied: the sessions' references are looked up with `resolve`
    /// (the daemon's one loaded copy of each list version), and `lists` are blocked on top for
    /// every query, as a session of their own without exceptions.
    public convenience init(
        _ desired: DesiredBlock, lists: [DomainSuffixSet] = [],
        resolve: (BlocklistReference) -> Blocklist? = { _ in nil },
        reusing previous: DNSFilterPolicy? = nil, seed: UInt64 = DomainSuffixSet.Builder.defaultSeed
    ) {
        var components: [Component] = []
        var sources: [BlockRules?] = []
        var missing: [BlocklistReference] = []
        for set in lists where !set.isEmpty {
            components.append(.blocklist(block: set, allow: .empty, lists: []))
            sources.append(nil)
        }
        for rules in desired.rules {
            if let previous, let index = previous.sources.firstIndex(where: { $0 == rules }) {
                components.append(previous.components[index])
                sources.append(rules)
                missing += rules.lists.filter(previous.missingLists.contains)
                continue
            }
            switch rules.mode {
            case .blocklist:
                var held: [Blocklist] = []
                for reference in rules.lists {
                    if let list = resolve(reference) {
                        if !list.block.isEmpty { held.append(list) }
                    } else {
                        missing.append(reference)
                    }
                }
                guard !rules.block.isEmpty || !held.isEmpty else { continue }
                // The rules' own compact sets, shared with the sessions: never a second copy.
                components.append(.blocklist(block: rules.block.suffixSet, allow: rules.allow.suffixSet, lists: held))
            case .allowlist:
                components.append(.allowlist(DomainSuffixSet(rules.block.sorted, seed: seed)))
            }
            sources.append(rules)
        }
        if desired.rules.isEmpty, !desired.domains.isEmpty {
            components.append(.exact(DomainSuffixSet(desired.domains, collapsingCovered: false, seed: seed)))
            sources.append(nil)
        }
        self.init(components: components, sources: sources, missingLists: Array(Set(missing)).sorted())
    }

    /// True when it blocks nothing.
    public var isEmpty: Bool { components.isEmpty }

    /// Names held in all its sets (a list held by several sessions counts once).
    public var nameCount: Int {
        var seen = Set<BlocklistReference>()
        return components.reduce(0) { total, component in
            switch component {
            case .blocklist(let block, let allow, let lists):
                let fresh = lists.filter { seen.insert($0.reference).inserted }
                return total + block.count + allow.count + fresh.reduce(0) { $0 + $1.block.count + $1.allow.count }
            case .allowlist(let set), .exact(let set): return total + set.count
            }
        }
    }

    /// Bytes allocated by its sets (shared with the sessions' rules; imported lists, shared with
    /// the daemon's library, are not counted).
    public var allocatedBytes: Int {
        components.reduce(0) { total, component in
            switch component {
            case .blocklist(let block, let allow, _): total + block.allocatedBytes + allow.allocatedBytes
            case .allowlist(let set), .exact(let set): total + set.allocatedBytes
            }
        }
    }

    /// The list versions its sessions hold.
    public var heldLists: [BlocklistReference] {
        var held = Set<BlocklistReference>()
        for case .blocklist(_, _, let lists) in components { held.formUnion(lists.map(\.reference)) }
        return held.sorted()
    }

    /// The rule blocking `name` (canonical bytes: lowercase, labels separated by dots; case and
    /// a trailing dot are tolerated), or nil when it is to be forwarded. Allocates only the
    /// returned rule.
    public func verdict(_ name: UnsafeRawBufferPointer) -> String? {
        guard let found = find(name) else { return nil }
        return found.length < 0 ? BlockRules.notAllowed : Self.suffix(of: name, length: found.length)
    }

    /// `verdict` for a name as text.
    public func verdict(for name: String) -> String? {
        var text = name
        return text.withUTF8 { verdict(UnsafeRawBufferPointer($0)) }
    }

    /// The rule blocking `name` and the imported list it comes from (nil for a profile's own
    /// rules), or nil when it is forwarded: what `lockctl check` explains.
    public func explain(_ name: String) -> (rule: String, list: BlocklistReference?)? {
        var text = name
        return text.withUTF8 { bytes -> (rule: String, list: BlocklistReference?)? in
            let raw = UnsafeRawBufferPointer(bytes)
            guard let found = find(raw) else { return nil }
            guard found.length >= 0 else { return (BlockRules.notAllowed, nil) }
            var list: BlocklistReference?
            if found.list >= 0, case .blocklist(_, _, let lists) = components[found.component] { list = lists[found.list].reference }
            return (Self.suffix(of: raw, length: found.length), list)
        }
    }

    /// The first component that blocks `name`: its index, the matching rule's length (-1 for
    /// an allowlist's refusal), and which of its lists matched (-1 for its own rules).
    private func find(_ name: UnsafeRawBufferPointer) -> (component: Int, length: Int, list: Int)? {
        for (index, component) in components.enumerated() {
            switch component {
            case .blocklist(let block, let allow, let lists):
                let excepted = allow.matchLength(name) ?? 0
                var best = 0
                var from = -1
                if let blocked = block.matchLength(name), blocked > excepted { best = blocked }
                for (position, list) in lists.enumerated() {
                    guard let blocked = list.block.matchLength(name), blocked > best, blocked > excepted else { continue }
                    if let allowed = list.allow.matchLength(name), allowed >= blocked { continue }
                    best = blocked
                    from = position
                }
                if best > 0 { return (index, best, from) }
            case .allowlist(let allowed):
                if allowed.matchLength(name) == nil { return (index, -1, -1) }
            case .exact(let set):
                var end = name.count
                if end > 0, name[end - 1] == UInt8(ascii: ".") { end -= 1 }
                if let length = set.matchLength(name), length == end { return (index, length, -1) }
            }
        }
        return nil
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
