/// The HTTP methods the control API uses. Kept here rather than taken from an HTTP library so
/// that both sides share the endpoint table without linking one.
public enum HTTPVerb: String, Sendable, Hashable, CaseIterable {
    // Spelled as on the wire: the raw values are the method names.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case GET, HEAD, POST, PATCH, DELETE, PUT, OPTIONS

    /// True for methods that change nothing and may be used by anyone.
    public var isRead: Bool { self == .GET || self == .HEAD }
}
