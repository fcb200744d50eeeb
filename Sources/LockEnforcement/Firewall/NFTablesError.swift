/// nft rejected a script.
public struct NFTablesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// nft's own message (parser or kernel error), shortened if very long.
    public var message: String

    /// Creates an error.
    public init(message: String) {
        self.message = message
    }

    public var description: String { "nftables: \(message)" }
}
