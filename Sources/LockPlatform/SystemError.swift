import Glibc

/// A failed system call, with what was being done and the path or object concerned, so that
/// messages read `rename /etc/hosts: Device or resource busy`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The operation (`open`, `rename`, …).
    public var operation: String
    /// The path or object it was applied to.
    public var subject: String
    /// The `errno` value.
    public var code: Int32

    /// Captures the current `errno`.
    public init(_ operation: String, _ subject: String, errno code: Int32 = errno) {
        self.operation = operation
        self.subject = subject
        self.code = code
    }

    public var description: String { "\(operation) \(subject): \(String(cString: strerror(code)))" }
}
