/// A value that was refused, with the field it came from, so that messages can say exactly
/// what to fix (`domains: "exa mple.com" is not a valid domain name: …`). File-backed callers
/// add the file and line.
public struct FieldError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field or option the value was given for (`domains`, `name`, `duration`, …).
    public var field: String
    /// The offending value as given, if there is one.
    public var value: String?
    /// Why it was refused.
    public var reason: String

    /// Creates an error for `field`.
    public init(field: String, value: String? = nil, reason: String) {
        self.field = field
        self.value = value
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
