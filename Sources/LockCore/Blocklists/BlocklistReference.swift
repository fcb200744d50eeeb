/// Names one imported blocklist as it was at one import: its name and the version that import
/// produced. Sessions keep references, not names, so a block in force keeps enforcing the
/// version it started with until its profile's rules are refreshed.
public struct BlocklistReference: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The list's name (`ads`), a-z, 0-9 and '-'.
    public var name: String
    /// The version: 16 hex digits of a digest of the list's names.
    public var version: String

    /// Creates a reference.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    public static func < (a: BlocklistReference, b: BlocklistReference) -> Bool {
        (a.name, a.version) < (b.name, b.version)
    }

    public var description: String { "\(name)@\(version)" }

    /// True when `text` can be a version: 16 lowercase hex digits.
    public static func isVersion(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
