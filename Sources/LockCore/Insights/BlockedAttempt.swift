import Foundation

/// Something a block stopped: a name looked up or connected to, or a program started.
public struct BlockedAttempt: Sendable, Equatable {
    /// A site or an app.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case site, app
    }

    /// Which enforcer saw it.
    public enum Source: String, Sendable, Codable, CaseIterable {
        /// The DNS filter answered a lookup as blocked.
        case dns
        /// The firewall refused a connection.
        case firewall
        /// The exec guard refused a program.
        case apps
        /// The browser companion showed its shield (names, and the paths and keywords only it sees).
        case browser
    }

    /// A site or an app.
    public var kind: Kind
    /// The domain (`reddit.com`), or for apps the app's id.
    public var name: String
    /// What else is worth knowing: the rule that matched, or the program's path.
    public var detail: String
    /// The profile whose block stopped it, when one session's rules say so.
    public var profile: String?
    /// Which enforcer saw it.
    public var source: Source
    /// Who tried: the client's address for DNS, the process id for apps.
    public var client: String
    /// When, on the wall clock.
    public var at: Date
    /// How many attempts this stands for (more than one only for firewall counters read
    /// without real-time events).
    public var count: Int

    /// Creates an attempt.
    public init(
        kind: Kind, name: String, detail: String = "", profile: String? = nil, source: Source, client: String = "",
        at: Date, count: Int = 1
    ) {
        self.kind = kind
        self.name = name
        self.detail = detail
        self.profile = profile
        self.source = source
        self.client = client
        self.at = at
        self.count = count
    }

    /// What repeats of the same attempt share.
    public var collapseKey: String { "\(kind.rawValue)\u{0}\(name)\u{0}\(client)" }
}
