/// A failure of the state store, kept whole: the store's own error (GRDB's, or the store's
/// refusal to write into a full or read-only state directory) stays its cause, so whoever
/// handles it can ask what failed; messages show its text.
public struct StorageFailure: Error, Equatable, CustomStringConvertible {
    /// The store's error.
    public let cause: any Error

    public init(_ cause: any Error) { self.cause = cause }

    public var description: String { String(describing: cause) }

    /// The same when they say the same: errors in general are not comparable, and the domain
    /// errors that carry this one are compared in tests.
    public static func == (a: StorageFailure, b: StorageFailure) -> Bool { a.description == b.description }
}
