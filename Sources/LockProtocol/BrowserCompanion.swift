import Foundation

/// `POST /v1/browser/hello`: the browser bridge says it is connected (at start and every minute
/// while it is), so `doctor` and `check` can say whether the companion is active. Anyone may
/// send it: it only says "I am here", and the daemon keeps it per user.
public struct BrowserHello: Sendable, Equatable, Codable {
    /// The browser (`chromium`, `chrome`, `brave`, `firefox`), as the bridge found its parent.
    public var browser: String
    /// The extension's version.
    public var extensionVersion: String
    /// True when the extension may run in private windows.
    public var incognito: Bool?

    /// Creates a hello.
    public init(browser: String, extensionVersion: String, incognito: Bool? = nil) {
        self.browser = browser
        self.extensionVersion = extensionVersion
        self.incognito = incognito
    }
}

/// `POST /v1/browser/attempts`: the companion showed its shield for `url`. Anyone may report:
/// the daemon counts it only when the URL is blocked now (by a name, path or keyword rule),
/// once per site and user within 10 s, so reports cannot add attempts on sites not blocked.
public struct BrowserAttemptReport: Sendable, Equatable, Codable {
    /// The address the tab was going to (http or https, at most 2048 bytes).
    public var url: String

    /// Creates a report.
    public init(url: String) { self.url = url }
}

/// The answer to an attempt report.
public struct BrowserAttemptResponse: Sendable, Equatable, Codable {
    /// True when it was counted (false: the URL is not blocked now, or the same site was
    /// reported by this user within 10 s).
    public var recorded: Bool
    /// The rule that blocks the URL, when one does.
    public var rule: String?

    /// Creates the answer.
    public init(recorded: Bool, rule: String? = nil) {
        self.recorded = recorded
        self.rule = rule
    }
}

/// The companions the daemon heard from.
public struct BrowserCompanions: Sendable, Equatable, Codable {
    /// One browser's companion, per user.
    public struct Entry: Sendable, Equatable, Codable {
        /// The user it runs as.
        public var uid: Int
        /// The browser.
        public var browser: String
        /// The extension's version.
        public var extensionVersion: String
        /// When it last said hello.
        public var lastSeen: Date
        /// True when it said hello within the last `BrowserCompanions.activeSeconds`.
        public var active: Bool
        /// Whether the browser lets it run in private windows, as it said (absent: it did not say).
        public var incognito: Bool?

        /// Creates an entry.
        public init(uid: Int, browser: String, extensionVersion: String, lastSeen: Date, active: Bool, incognito: Bool? = nil) {
            self.incognito = incognito
            self.uid = uid
            self.browser = browser
            self.extensionVersion = extensionVersion
            self.lastSeen = lastSeen
            self.active = active
        }
    }

    /// How recent a hello must be for the companion to count as connected: the bridge says
    /// hello every minute, so two missed ones mean it is gone.
    public static let activeSeconds = 150

    /// Every companion heard from since the daemon started, most recent first.
    public var companions: [Entry]

    /// Creates the list.
    public init(companions: [Entry]) { self.companions = companions }
}

/// `POST /v1/usage/samples`: the browser companion's site meter (the active, visible tab while
/// the user is not idle). Anyone may report: reports only add time (they can make an
/// allowance's block start sooner, never later), and each user's reports are clipped to the
/// time that really passed, so no one can report more than one stretch of time at once.
public struct UsageSamplesRequest: Sendable, Equatable, Codable {
    /// One stretch of time on one site.
    public struct Sample: Sendable, Equatable, Codable {
        /// The tab's host (`www.youtube.com`), as the browser has it.
        public var host: String
        /// When the stretch ended.
        public var end: Date
        /// How long it lasted, in seconds (at most 120).
        public var seconds: Double

        /// Creates a sample.
        public init(host: String, end: Date, seconds: Double) {
            self.host = host
            self.end = end
            self.seconds = seconds
        }
    }

    /// The samples (at most 32), oldest first.
    public var samples: [Sample]

    /// Creates a report.
    public init(samples: [Sample]) { self.samples = samples }
}

/// The answer to a usage report: what was counted.
public struct UsageSamplesResponse: Sendable, Equatable, Codable {
    /// Seconds counted per site (the name usage reports list it under).
    public var counted: [String: Double]

    /// Creates the answer.
    public init(counted: [String: Double]) { self.counted = counted }
}
