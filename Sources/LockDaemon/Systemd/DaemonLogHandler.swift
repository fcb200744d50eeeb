import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The daemon's swift-log handler: structured journal entries when stderr is the journal,
/// plain lines on stderr otherwise (see ``LoggingBootstrap``).
public struct DaemonLogHandler: LogHandler {
    /// Where entries go.
    public let destination: LogDestination
    /// `SYSLOG_IDENTIFIER`, and the name before the colon on stderr lines (`simplylockd`).
    public let identifier: String
    /// The logger's label, sent to the journal as `SIMPLYLOCK_LOGGER`.
    public let label: String
    /// The minimum level that is logged.
    public var logLevel: Logger.Level
    /// Metadata attached to every entry of this logger.
    public var metadata: Logger.Metadata = [:]
    /// Supplies contextual metadata at log time.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler.
    public init(
        destination: LogDestination, label: String, identifier: String, logLevel: Logger.Level,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.destination = destination
        self.label = label
        self.identifier = identifier
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
    }

    /// Gets or sets one metadata value of this logger.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one entry. If the journal refuses it (journald overloaded or restarting), the
    /// line goes to stderr, which is then the journal's stream socket: kept, only unstructured.
    public func log(event: LogEvent) {
        let merged = event.effectiveMetadata(base: metadata, provider: metadataProvider)
        if destination == .journal,
            JournalEntry.send(JournalEntry.fields(for: event, metadata: merged, identifier: identifier, label: label)) >= 0
        {
            return
        }
        StderrLine.write(
            StderrLine.formatLine(
                secondsSinceEpoch: Int(time(nil)), level: event.level, identifier: identifier,
                message: event.message.description, metadata: merged))
    }
}
