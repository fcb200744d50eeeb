/// Everything that must be blocked right now: the union of all active sessions.
///
/// Enforcers are always handed the whole desired state, never incremental changes, so that a
/// missed or repeated call cannot make them drift from the truth.
public struct DesiredBlock: Sendable, Equatable, Codable {
    /// Blocked domain names, normalised (lowercase ASCII, punycode), sorted and unique, `www.`
    /// twins already included (and left out where a profile's exception covers the twin).
    /// Exact-name mechanisms (the hosts file) list exactly these.
    public var domains: [String]

    /// Creates a desired state; domains are sorted and de-duplicated.
    public init(domains: some Sequence<String> = []) {
        self.domains = Array(Set(domains)).sorted()
    }

    /// Nothing blocked: enforcers remove every trace of themselves.
    public static let empty = DesiredBlock()

    /// True when nothing is to be blocked.
    public var isEmpty: Bool { domains.isEmpty }
}
