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

        /// Creates a match.
        public init(profile: String, session: String, origin: String, rule: String) {
            self.profile = profile
            self.session = session
            self.origin = origin
            self.rule = rule
        }
    }

    /// The name, normalised; for an app, its id in the app catalog.
    public var name: String
    /// For an app, its display name (`Name=` of its desktop entry).
    public var displayName: String?
    /// True when at least one active session blocks it.
    public var blocked: Bool
    /// The sessions that block it.
    public var matches: [Match]

    /// Creates a response.
    public init(name: String, displayName: String? = nil, matches: [Match]) {
        self.name = name
        self.displayName = displayName
        self.blocked = !matches.isEmpty
        self.matches = matches
    }
}
