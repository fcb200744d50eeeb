/// `GET /v1/check?name=…` or `?app=…`: whether a name or an app is blocked now, and by what.
public struct CheckResponse: Sendable, Equatable, Codable {
    /// One session that blocks the name.
    public struct Match: Sendable, Equatable, Codable {
        /// The blocking profile.
        public var profile: String
        /// The session.
        public var session: String
        /// Its origin.
        public var origin: String
        /// The rule that matched (`reddit.com` for `www.reddit.com`; for an app, the id of the
        /// blocked app).
        public var rule: String
        /// The imported list the rule comes from; absent for the profile's own rules.
        public var list: String?

        /// Creates a match.
        public init(profile: String, session: String, origin: String, rule: String, list: String? = nil) {
            self.profile = profile
            self.session = session
            self.origin = origin
            self.rule = rule
            self.list = list
        }
    }

    /// One enforcer's answer: whether it keeps the name from being reached now, and why.
    public struct EnforcerAnswer: Sendable, Equatable, Codable {
        /// The enforcer (`hosts`, `nftables`, `dns`).
        public var name: String
        /// True when it blocks the name now.
        public var blocks: Bool
        /// How it blocks it, or why it does not.
        public var detail: String

        /// Creates an answer.
        public init(name: String, blocks: Bool, detail: String) {
            self.name = name
            self.blocks = blocks
            self.detail = detail
        }
    }

    /// The name, normalised; for an app, its id in the app catalog.
    public var name: String
    /// For an app, its display name (`Name=` of its desktop entry).
    public var displayName: String?
    /// True only when at least one enforcer in force blocks it (a session's rule alone is not
    /// enough: the hosts file, say, cannot block a subdomain, and with no app enforcer running
    /// nothing stops an app).
    public var blocked: Bool
    /// The sessions whose rules block it.
    public var matches: [Match]
    /// Each enforcer that handles names (or, for an app, apps), in order, with its answer.
    public var enforcers: [EnforcerAnswer]

    /// A response about an app: blocked when a session blocks it and an enforcer in force
    /// stops it.
    public init(name: String, displayName: String? = nil, matches: [Match], enforcers: [EnforcerAnswer]) {
        self.name = name
        self.displayName = displayName
        self.blocked = !matches.isEmpty && enforcers.contains { $0.blocks }
        self.matches = matches
        self.enforcers = enforcers
    }

    /// A response about a name; `blocked` follows the enforcers' answers.
    public init(name: String, matches: [Match], enforcers: [EnforcerAnswer]) {
        self.name = name
        self.blocked = enforcers.contains { $0.blocks }
        self.matches = matches
        self.enforcers = enforcers
    }
}
