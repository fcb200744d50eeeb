/// Whether one enforcer really keeps a name from being reached now (`lockctl check`): it
/// blocks it, and how; or it does not, and why not (nothing blocks it, or the mechanism
/// cannot reach that name, such as a subdomain in the hosts file).
public enum Coverage: Sendable, Equatable {
    /// The enforcer blocks the name now; the text says how (`listed in /etc/hosts`).
    case blocks(String)
    /// The enforcer does not block the name; the text says why.
    case doesNotCover(String)

    /// True for `.blocks`.
    public var blocks: Bool {
        if case .blocks = self { true } else { false }
    }

    /// The explanation.
    public var detail: String {
        switch self {
        case .blocks(let text), .doesNotCover(let text): text
        }
    }
}

/// What kind of names an enforcer can keep from being reached at all, and what it cannot, in
/// a sentence each (`lockctl doctor`).
public struct EnforcerScope: Sendable, Equatable {
    /// What it covers (`exact names only, with their www. and trailing-dot forms`).
    public var covers: String
    /// What it cannot cover, and what does (`subdomains need the dns enforcer`).
    public var misses: String

    /// Creates a scope.
    public init(covers: String, misses: String) {
        self.covers = covers
        self.misses = misses
    }
}
