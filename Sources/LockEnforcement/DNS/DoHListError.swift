/// A line of a DoH list that could not be read.
public struct DoHListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the list came from (a path).
    public var source: String
    /// 1-based line number.
    public var line: Int
    /// What is wrong.
    public var message: String

    public var description: String { "\(source):\(line): \(message)" }
}
