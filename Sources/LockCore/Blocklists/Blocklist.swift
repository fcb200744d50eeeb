import Foundation

/// One imported blocklist, loaded: the names it blocks and its exceptions as compact suffix
/// sets, and what is known about its import. Values share their sets: copies are free, so the
/// daemon holds each list once whoever refers to it.
public struct Blocklist: Sendable {
    /// Which list and version this is.
    public var reference: BlocklistReference
    /// Blocked names; each blocks itself and every name under it. Names a listed parent
    /// already covers are collapsed.
    public var block: DomainSuffixSet
    /// Exceptions (`@@||name^`); each keeps itself and every name under it reachable, against
    /// this list's own rules only.
    public var allow: DomainSuffixSet
    /// Where it came from and what the parser made of it.
    public var info: BlocklistInfo

    /// Creates a list.
    public init(reference: BlocklistReference, block: DomainSuffixSet, allow: DomainSuffixSet, info: BlocklistInfo) {
        self.reference = reference
        self.block = block
        self.allow = allow
        self.info = info
    }

    /// The rule of this list blocking `name` (any case, trailing dot allowed), or nil: its most
    /// specific block rule, unless one of its exceptions is at least as specific.
    public func blockingRule(for name: String) -> String? {
        guard let blocked = block.match(name) else { return nil }
        if let allowed = allow.match(name), allowed.utf8.count >= blocked.utf8.count { return nil }
        return blocked
    }

    /// True when every name this list blocks is blocked by `newer` too (checked name by name
    /// against `newer`'s rules and exceptions): a block holding this list loses nothing by
    /// moving to `newer`.
    public func isCovered(by newer: Blocklist) -> Bool {
        var covered = true
        block.forEach { name in
            if covered, newer.blockingRule(for: name) == nil { covered = false }
        }
        // An exception of ours that `newer` lacks means `newer` blocks more, which is fine;
        // one that `newer` adds below our names was caught above only if it hits a listed
        // name exactly, so look at `newer`'s exceptions too.
        if covered {
            newer.allow.forEach { name in
                if covered, blockingRule(for: name) != nil { covered = false }
            }
        }
        return covered
    }
}

/// What is known about one import of a blocklist, stored with it.
public struct BlocklistInfo: Sendable, Equatable, Codable {
    /// The list's name.
    public var name: String
    /// The version (see `BlocklistReference.version`).
    public var version: String
    /// Where the text came from, as the importer said (a file path, or `-` for standard input).
    public var source: String
    /// When it was imported.
    public var importedAt: Date
    /// Names kept (after duplicates and names under a listed parent were collapsed).
    public var names: Int
    /// Exceptions kept.
    public var exceptions: Int
    /// What the parser counted: lines, comments, skipped rules by reason with examples.
    public var report: BlocklistReport
    /// Counts the imports of this name (the newest is current, even within one second).
    public var sequence: Int = 0

    /// Creates the facts of an import.
    public init(
        name: String, version: String, source: String, importedAt: Date, names: Int, exceptions: Int,
        report: BlocklistReport
    ) {
        self.name = name
        self.version = version
        self.source = source
        self.importedAt = importedAt
        self.names = names
        self.exceptions = exceptions
        self.report = report
    }

    private enum CodingKeys: String, CodingKey { case name, version, source, importedAt, names, exceptions, report, sequence }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name), version: try container.decode(String.self, forKey: .version),
            source: try container.decode(String.self, forKey: .source),
            importedAt: try container.decode(Date.self, forKey: .importedAt), names: try container.decode(Int.self, forKey: .names),
            exceptions: try container.decode(Int.self, forKey: .exceptions),
            report: try container.decode(BlocklistReport.self, forKey: .report))
        sequence = try container.decodeIfPresent(Int.self, forKey: .sequence) ?? 0
    }

    /// The reference to this import.
    public var reference: BlocklistReference { BlocklistReference(name: name, version: version) }
}
