import LockCore

/// Why an imported blocklist could not be imported, shown or removed. Nothing changed when
/// one is thrown.
public enum ListError: Error, Equatable, Sendable {
    /// The name cannot be a list's.
    case invalidName(FieldError)
    /// No list has that name.
    case notFound(String)
    /// Another import is being received; one runs at a time.
    case importInProgress(String)
    /// The text holds more names than a list may.
    case tooManyNames(limit: Int)
    /// The text gave no name at all to block.
    case empty(report: BlocklistReport)
    /// The body could not be read to its end.
    case transfer(String)
    /// The body is larger than an import may be.
    case bodyTooLarge(limit: Int)
    /// A running strict block holds the list; it can be removed once that ends.
    case usedByStrictBlock(list: String, session: Session)
    /// The file could not be written or removed.
    case io(String)
    /// The change could not be enforced on the running blocks, so it was undone.
    case enforcement(String)
}
