import Foundation

/// One emergency-access challenge: a random text to type, not before a moment on the boot
/// clock (which nobody can move), and not after it expired.
public struct UnlockChallenge: Sendable, Equatable {
    /// Identifies the challenge in the answer.
    public var id: String
    /// The session it would end.
    public var session: String
    /// The characters to type.
    public var text: String
    /// The earliest moment the answer is accepted, on the boot clock of `bootID`.
    public var notBefore: BootTime
    /// The moment it expires, on the same clock.
    public var expires: BootTime
    /// The boot the two instants belong to: a reboot voids the challenge.
    public var bootID: String
    /// Wrong answers still accepted before the challenge is void.
    public var triesLeft: Int
    /// The order the groups are sent in: a permutation of their indices. The text never goes
    /// out whole, so a script cannot simply echo it back; it has to put the groups in order.
    public var order: [Int]

    /// Characters the text is made of: letters and digits without those easily confused
    /// (O and 0, I, l and 1).
    public static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
    /// Characters per group when the text is shown.
    public static let groupLength = 5
    /// What separates groups when shown; typed separators mean the text was pasted.
    public static let separator = "\u{00B7}"
    /// How long after `notBefore` an answer is still accepted.
    public static let answerWindow: Duration = .seconds(600)
    /// Wrong answers allowed before the challenge is void and the wait starts over.
    public static let tries = 3

    /// A new challenge for `session` under `policy` at `now`.
    public init(
        id: String, session: String, policy: FrictionPolicy, now: ClockReading,
        using generator: inout some RandomNumberGenerator
    ) {
        self.id = id
        self.session = session
        text = String((0..<max(policy.typing, 0)).map { _ in UnlockChallenge.alphabet.randomElement(using: &generator)! })
        notBefore = now.boot + policy.delay
        expires = notBefore + UnlockChallenge.answerWindow
        bootID = now.bootID
        triesLeft = UnlockChallenge.tries
        order = Array(0..<((text.count + Self.groupLength - 1) / Self.groupLength)).shuffled(using: &generator)
    }

    /// The groups of the text as sent: each with its 1-based position, in the shuffled order.
    public var pieces: [(position: Int, text: String)] {
        let groups = groups
        return order.map { (position: $0 + 1, text: groups[$0]) }
    }

    private var groups: [String] {
        stride(from: 0, to: text.count, by: Self.groupLength).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            let end = text.index(start, offsetBy: min(Self.groupLength, text.count - offset))
            return String(text[start..<end])
        }
    }

    /// The text as shown: groups of five joined by a middle dot, so that a copy carries the
    /// separators and a paste is told apart from typing.
    public var display: String { groups.joined(separator: " \(Self.separator) ") }

    /// How long until an answer is accepted (zero once it is).
    public func wait(at now: ClockReading) -> Duration {
        guard now.bootID == bootID else { return .zero }
        return max(.zero, notBefore - now.boot)
    }

    /// What an answer at `now` gets.
    public func check(_ answer: String, at now: ClockReading) -> Verdict {
        guard now.bootID == bootID, now.boot < expires else { return .expired }
        guard now.boot >= notBefore else { return .tooEarly(remaining: notBefore - now.boot) }
        if answer.contains(Self.separator) { return .pasted }
        let typed = answer.filter { !$0.isWhitespace }
        return typed == text ? .accepted : .wrong
    }

    /// The outcome of an answer.
    public enum Verdict: Sendable, Equatable {
        /// Right, and in time.
        case accepted
        /// Before the wait was over.
        case tooEarly(remaining: Duration)
        /// Not the text.
        case wrong
        /// The separators shown between groups were sent along: the text was pasted.
        case pasted
        /// Too late, or from before a reboot.
        case expired
    }
}
