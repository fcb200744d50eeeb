import Foundation

/// An imported blocklist as clients see it (`lockctl lists show`).
public struct ListInfo: Sendable, Equatable, Codable {
    /// Rules of one kind the parser could not use.
    public struct Skipped: Sendable, Equatable, Codable {
        /// One such rule as it appeared.
        public struct Example: Sendable, Equatable, Codable {
            /// 1-based line number.
            public var line: Int
            /// The rule (shortened).
            public var text: String

            /// Creates an example.
            public init(line: Int, text: String) {
                self.line = line
                self.text = text
            }
        }

        /// The reason (`regex`, `options`, `path`, …).
        public var reason: String
        /// The reason in words.
        public var explanation: String
        /// How many.
        public var count: Int
        /// The first few.
        public var examples: [Example]

        /// Creates a group of skipped rules.
        public init(reason: String, explanation: String, count: Int, examples: [Example]) {
            self.reason = reason
            self.explanation = explanation
            self.count = count
            self.examples = examples
        }
    }

    /// A running block holding a version of the list.
    public struct Holder: Sendable, Equatable, Codable {
        /// The session.
        public var session: String
        /// Its profile.
        public var profile: String
        /// The version it holds.
        public var version: String
        /// Whether it is strict.
        public var strict: Bool

        /// Creates a holder.
        public init(session: String, profile: String, version: String, strict: Bool) {
            self.session = session
            self.profile = profile
            self.version = version
            self.strict = strict
        }
    }

    /// The list's name.
    public var name: String
    /// The current version (16 hex digits of a digest of its names).
    public var version: String
    /// Where it came from, as the importer said (a file path, or `-` for standard input).
    public var source: String
    /// When the current version was imported.
    public var importedAt: Date
    /// Names it blocks, each with every name under it (after collapsing names under a listed parent).
    public var names: Int
    /// Exceptions (`@@||name^`) it keeps reachable.
    public var exceptions: Int
    /// Lines read.
    public var lines: Int
    /// Comments, headers and blank lines.
    public var comments: Int
    /// Rules that could not be used, all reasons together.
    public var skipped: Int
    /// Rules that could not be used, by reason, most frequent first.
    public var skippedByReason: [Skipped]
    /// Memory its sets take in the daemon.
    public var bytes: Int
    /// Profiles that name it.
    public var profiles: [String]
    /// Running blocks that hold a version of it.
    public var heldBy: [Holder]

    /// Creates the wire form of a list.
    public init(
        name: String, version: String, source: String, importedAt: Date, names: Int, exceptions: Int, lines: Int,
        comments: Int, skipped: Int, skippedByReason: [Skipped], bytes: Int, profiles: [String], heldBy: [Holder]
    ) {
        self.name = name
        self.version = version
        self.source = source
        self.importedAt = importedAt
        self.names = names
        self.exceptions = exceptions
        self.lines = lines
        self.comments = comments
        self.skipped = skipped
        self.skippedByReason = skippedByReason
        self.bytes = bytes
        self.profiles = profiles
        self.heldBy = heldBy
    }
}

/// `GET /v1/lists`.
public struct ListList: Sendable, Equatable, Codable {
    /// Every imported list, by name.
    public var lists: [ListInfo]
    /// Stored lists that could not be loaded (left as they are, not used).
    public var problems: [String]

    /// Creates a list of lists.
    public init(lists: [ListInfo], problems: [String]) {
        self.lists = lists
        self.problems = problems
    }
}

/// `PUT /v1/lists/{name}`: what the import made.
public struct ListImport: Sendable, Equatable, Codable {
    /// The list as imported.
    public var list: ListInfo
    /// Sessions moved to the new version (a strict one keeps what the new version does not cover).
    public var updatedSessions: [String]
    /// True when the text gave the names the current version already had.
    public var unchanged: Bool

    /// Creates the answer.
    public init(list: ListInfo, updatedSessions: [String], unchanged: Bool) {
        self.list = list
        self.updatedSessions = updatedSessions
        self.unchanged = unchanged
    }
}
