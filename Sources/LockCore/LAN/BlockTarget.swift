/// Where a session blocks: this machine, every device the LAN's DNS server answers, named
/// device groups (`[lan]` in simplylockd.toml), or several of these.
///
/// Written as a list of names (`["local"]`, `["kids", "office"]`); `local` and `lan` are
/// reserved: `local` is this machine (what every enforcer but the LAN ones acts on), `lan` is
/// every client of the LAN DNS server. The default is this machine.
public struct BlockTarget: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The reserved name of this machine.
    public static let localName = "local"
    /// The reserved name of every client of the LAN DNS server.
    public static let lanName = "lan"
    /// Names no device group may take.
    public static let reserved: Set<String> = [localName, lanName]

    /// The names, sorted and unique; never empty.
    public let names: [String]

    /// This machine only: the default target.
    public static let thisMachine = BlockTarget(validated: [localName])

    private init(validated names: [String]) { self.names = names }

    /// A target from names as typed (`kids`, `local`, `lan`, a group name); each must be a
    /// valid name (1–40 of a-z, 0-9, '-'); an empty list is this machine.
    ///
    /// - Throws: `FieldError` for the field `target` naming the first bad value. Whether a group
    ///   exists is checked against the configuration (`TargetPolicy`), not here.
    public init(parsing names: some Sequence<String>) throws(FieldError) {
        var seen: Set<String> = []
        for raw in names {
            let name = raw.lowercased()
            do { try NameRule.validate(name, kind: "device group") } catch {
                throw FieldError(field: "target", value: raw, reason: error.reason)
            }
            seen.insert(name)
        }
        self.names = seen.isEmpty ? [Self.localName] : seen.sorted()
    }

    /// True when it includes this machine.
    public var includesLocal: Bool { names.contains(Self.localName) }

    /// True when it is exactly this machine (the default).
    public var isThisMachine: Bool { names == [Self.localName] }

    /// Everything but this machine: `lan` and device group names, sorted.
    public var lanTargets: [String] { names.filter { $0 != Self.localName } }

    /// Device groups named, without `local` and `lan`.
    public var groups: [String] { names.filter { !Self.reserved.contains($0) } }

    /// True when it shares a name with `other`.
    public func overlaps(_ other: BlockTarget) -> Bool { !Set(names).isDisjoint(with: other.names) }

    /// `local`, `kids`, `kids,office`.
    public var description: String { names.joined(separator: ",") }

    public init(from decoder: any Decoder) throws {
        let names = try decoder.singleValueContainer().decode([String].self)
        do { try self.init(parsing: names) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(names)
    }
}
