/// Why a text could not be read as an IP address or network.
///
/// The message always quotes the offending value, because it usually comes from a profile file
/// with many entries and the user needs to find the one that is wrong.
public struct IPNetworkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public var value: String
    /// What is wrong with it, in words.
    public var reason: String

    /// Creates an error for `value`.
    public init(value: String, reason: String) {
        self.value = value
        self.reason = reason
    }

    public var description: String {
        "invalid IP address or network \"\(value)\": \(reason)"
    }
}
