/// Why the DNS forwarder could not start or do its work.
public struct DNSForwarderError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the address or setting concerned.
    public var message: String
    public var description: String { message }
}
