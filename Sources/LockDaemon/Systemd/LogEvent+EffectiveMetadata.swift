import Logging

extension LogEvent {
    /// The metadata a handler should emit for this event: the handler's own metadata, overridden
    /// by the metadata provider's, overridden by the event's, plus `error.message`/`error.type`
    /// when the event carries an error (the same precedence and keys as swift-log's
    /// `StreamLogHandler`, so output does not change when handlers are swapped).
    func effectiveMetadata(base: Logger.Metadata, provider: Logger.MetadataProvider?) -> Logger.Metadata {
        var merged = base
        if let provided = provider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, new in new }
        }
        if let explicit = metadata, !explicit.isEmpty {
            merged.merge(explicit) { _, new in new }
        }
        if let error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return merged
    }
}
