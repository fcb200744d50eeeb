import Foundation

/// `GET /v1/usage`: time in use per app, app category, site or device group over a window,
/// per local day, with (on request) which meter counted each minute.
public struct UsageResponse: Sendable, Equatable, Codable {
    /// The window's start (RFC 3339).
    public var from: Date
    /// The window's end (RFC 3339, exclusive).
    public var to: Date
    /// The time zone days are counted in.
    public var zone: String
    /// `app`, `category`, `site` or `group`.
    public var by: String
    /// Seconds per name over the window, most first.
    public var items: [Amount]
    /// Each day the window touches, oldest first (23 or 25 hours long when clocks change).
    public var days: [Day]
    /// With `explain=true`: each minute of the window (at most 10 000), and the meter that
    /// counted it; otherwise nil.
    public var minutes: [Minute]?

    /// Seconds of one name.
    public struct Amount: Sendable, Equatable, Codable {
        public var name: String
        public var seconds: Int
        public init(name: String, seconds: Int) {
            self.name = name
            self.seconds = seconds
        }
    }

    /// One day.
    public struct Day: Sendable, Equatable, Codable {
        /// The civil date (`2027-03-28`).
        public var date: String
        /// Its first instant.
        public var start: Date
        /// The next day's first instant.
        public var end: Date
        /// Seconds per name, most first.
        public var items: [Amount]
        public init(date: String, start: Date, end: Date, items: [Amount]) {
            self.date = date
            self.start = start
            self.end = end
            self.items = items
        }
    }

    /// One attributed minute.
    public struct Minute: Sendable, Equatable, Codable {
        /// Its first instant.
        public var start: Date
        /// `app`, `site` or `group`.
        public var kind: String
        /// What it was spent on.
        public var name: String
        /// How many of its seconds.
        public var seconds: Int
        /// The meter that counted it (`apps-active`, `apps-running`, `dns`, `firewall`, `lan-dns`).
        public var meter: String
        public init(start: Date, kind: String, name: String, seconds: Int, meter: String) {
            self.start = start
            self.kind = kind
            self.name = name
            self.seconds = seconds
            self.meter = meter
        }
    }

    public init(from: Date, to: Date, zone: String, by: String, items: [Amount], days: [Day], minutes: [Minute]?) {
        self.from = from
        self.to = to
        self.zone = zone
        self.by = by
        self.items = items
        self.days = days
        self.minutes = minutes
    }
}
