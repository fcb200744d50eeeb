import Logging
import Testing

@testable import LockDaemon

/// The journal entry encoding, tested without a journal.
@Suite("Journal field encoding")
struct JournalFieldTests {
    struct SampleError: Error, CustomStringConvertible {
        var description: String { "rename failed: EXDEV" }
    }

    @Test("Fixed fields first, metadata as sorted SIMPLYLOCK_ fields")
    func fieldsOfAnEntry() {
        let event = LogEvent(
            level: .warning, message: "hosts file changed externally",
            metadata: nil, source: "LockEnforcement",
            file: "LockEnforcement/HostsFileEnforcer.swift", function: "apply(_:)", line: 42)
        let fields = JournalEntry.fields(
            for: event,
            metadata: ["session": "s-1", "profile": "deep-work", "origin": "schedule:weekday"],
            identifier: "simplylockd", label: "simplylock.hosts")
        #expect(
            fields == [
                "MESSAGE=hosts file changed externally",
                "PRIORITY=4",
                "SYSLOG_IDENTIFIER=simplylockd",
                "CODE_FILE=LockEnforcement/HostsFileEnforcer.swift",
                "CODE_LINE=42",
                "CODE_FUNC=apply(_:)",
                "SIMPLYLOCK_LEVEL=warning",
                "SIMPLYLOCK_LOGGER=simplylock.hosts",
                "SIMPLYLOCK_ORIGIN=schedule:weekday",
                "SIMPLYLOCK_PROFILE=deep-work",
                "SIMPLYLOCK_SESSION=s-1",
            ])
    }

    @Test("Values keep newlines (sd_journal_sendv encodes them); nested values are rendered")
    func valuesAreNotMangled() {
        let event = LogEvent(
            level: .error, message: "line one\nline two", metadata: nil, source: nil,
            file: "f.swift", function: "g()", line: 1)
        let fields = JournalEntry.fields(
            for: event, metadata: ["domains": ["a.com", "b.com"], "count": "\(3)"],
            identifier: "simplylockd", label: "x")
        #expect(fields.first == "MESSAGE=line one\nline two")
        #expect(fields.contains("PRIORITY=3"))
        // swift-log's own rendering of arrays (MetadataValue.description).
        #expect(fields.contains("SIMPLYLOCK_DOMAINS=[\"a.com\", \"b.com\"]"))
        #expect(fields.contains("SIMPLYLOCK_COUNT=3"))
    }

    @Test(
        "swift-log levels map to syslog priorities",
        arguments: [
            (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ])
    func priorities(level: Logger.Level, priority: Int) {
        #expect(level.syslogPriority == priority)
    }

    @Test(
        "Metadata keys become valid journal field names",
        arguments: [
            ("profile", "SIMPLYLOCK_PROFILE"),
            ("error.message", "SIMPLYLOCK_ERROR_MESSAGE"),
            ("peer-uid", "SIMPLYLOCK_PEER_UID"),
            ("Ünïcode key", "SIMPLYLOCK__N_CODE_KEY"),
            ("_private", "SIMPLYLOCK__PRIVATE"),
            ("9lives", "SIMPLYLOCK_9LIVES"),
        ])
    func fieldNames(key: String, expected: String) {
        #expect(JournalEntry.fieldName(forMetadataKey: key) == expected)
    }

    @Test("Field names are cut at journald's 64-byte limit")
    func longKeys() {
        let name = JournalEntry.fieldName(forMetadataKey: String(repeating: "k", count: 100))
        #expect(name.utf8.count == 64)
        #expect(name.hasPrefix("SIMPLYLOCK_KKK"))
    }

    @Test("Handler metadata, provider metadata, event metadata and errors are merged in that order")
    func metadataPrecedence() {
        var handler = DaemonLogHandler(
            destination: .journal, label: "l", identifier: "simplylockd", logLevel: .info,
            metadataProvider: Logger.MetadataProvider { ["session": "from-provider", "origin": "pomodoro"] })
        handler.metadata = ["session": "from-handler", "profile": "deep-work"]
        let event = LogEvent(
            level: .error, message: "m", error: SampleError(), metadata: ["origin": "manual"],
            source: nil, file: "f", function: "g", line: 1)
        let merged = JournalEntry.fields(
            for: event, metadata: event.effectiveMetadata(base: handler.metadata, provider: handler.metadataProvider),
            identifier: handler.identifier, label: handler.label)
        #expect(merged.contains("SIMPLYLOCK_SESSION=from-provider"))
        #expect(merged.contains("SIMPLYLOCK_ORIGIN=manual"))
        #expect(merged.contains("SIMPLYLOCK_PROFILE=deep-work"))
        #expect(merged.contains("SIMPLYLOCK_ERROR_MESSAGE=rename failed: EXDEV"))
        #expect(merged.contains { $0.hasPrefix("SIMPLYLOCK_ERROR_TYPE=") && $0.hasSuffix("SampleError") })
    }
}
