import Foundation

/// `POST /v1/sessions/{ref}/unlock`: without fields, asks for a challenge (a new one replaces
/// any earlier one, so leaving restarts the wait); with both, answers it.
public struct UnlockRequest: Sendable, Equatable, Codable {
    /// The challenge answered.
    public var challenge: String?
    /// The text as typed (spaces are ignored; the separators shown must not be typed).
    public var answer: String?

    /// Creates a request; no arguments ask for a challenge.
    public init(challenge: String? = nil, answer: String? = nil) {
        self.challenge = challenge
        self.answer = answer
    }
}

/// The answer to `POST /v1/sessions/{ref}/unlock`.
public struct UnlockResponse: Sendable, Equatable, Codable {
    /// `challenge` (wait, then type) or `unlocked` (the block has ended).
    public var state: State
    /// The session concerned, as it is now (ended when unlocked).
    public var session: SessionInfo
    /// The challenge to answer, when `state` is `challenge`.
    public var challenge: Challenge?
    /// The weekly allowance, this unlock included when `state` is `unlocked`.
    public var allowance: AllowanceInfo

    /// Where the exchange is.
    public enum State: String, Sendable, Codable {
        case challenge, unlocked
    }

    /// What to wait for and type.
    public struct Challenge: Sendable, Equatable, Codable {
        /// Identifies it in the answer.
        public var id: String
        /// The text to type, in groups of five sent in a shuffled order, each with its place:
        /// the answer is the groups in the order of `position`, without separators. The text
        /// never comes whole, so that a script cannot simply echo it back.
        public var pieces: [Piece]
        /// How many characters to type.
        public var characters: Int
        /// Answers are refused before this (RFC 3339).
        public var notBefore: Date
        /// Seconds to wait from now.
        public var waitSeconds: Double
        /// Answers are refused after this; ask for a new challenge then.
        public var expiresAt: Date

        /// Creates a challenge.
        public init(id: String, pieces: [Piece], characters: Int, notBefore: Date, waitSeconds: Double, expiresAt: Date) {
            self.id = id
            self.pieces = pieces
            self.characters = characters
            self.notBefore = notBefore
            self.waitSeconds = waitSeconds
            self.expiresAt = expiresAt
        }

        /// One group of the text.
        public struct Piece: Sendable, Equatable, Codable {
            /// Where it goes, from 1.
            public var position: Int
            /// Its characters.
            public var text: String

            /// Creates a piece.
            public init(position: Int, text: String) {
                self.position = position
                self.text = text
            }
        }

        /// The groups in order, separated by ` · ` (the separators are not typed), for people.
        public var display: String {
            pieces.sorted { $0.position < $1.position }.map(\.text).joined(separator: " \u{00B7} ")
        }
    }

    /// Creates a response.
    public init(state: State, session: SessionInfo, challenge: Challenge?, allowance: AllowanceInfo) {
        self.state = state
        self.session = session
        self.challenge = challenge
        self.allowance = allowance
    }
}
