import LockDaemon
import Logging
import Testing

@Suite("Plain stderr lines")
struct StderrLineTests {
    @Test("Timestamp, level, identifier, message, sorted metadata")
    func line() {
        let line = StderrLine.formatLine(
            secondsSinceEpoch: 1_795_341_600, level: .warning, identifier: "simplylockd",
            message: "message", metadata: ["key": "value", "another": "1"])
        #expect(line == "2026-11-22T10:00:00Z warning simplylockd: message another=1 key=value\n")
    }

    @Test("Ambiguous values are quoted, newlines escaped, one entry stays one line")
    func escaping() {
        let line = StderrLine.formatLine(
            secondsSinceEpoch: 0, level: .error, identifier: "simplylockd",
            message: "two\nlines", metadata: ["path": "/etc/my hosts", "quote": "say \"hi\"", "empty": "", "eq": "a=b"])
        #expect(
            line
                == "1970-01-01T00:00:00Z error simplylockd: two\\nlines empty=\"\" eq=\"a=b\" path=\"/etc/my hosts\" quote=\"say \\\"hi\\\"\"\n"
        )
        #expect(line.filter { $0 == "\n" }.count == 1)
    }

    @Test(
        "Timestamps are UTC with zero padding",
        arguments: [
            (0, "1970-01-01T00:00:00Z"), (951_782_400, "2000-02-29T00:00:00Z"), (4_102_444_799, "2099-12-31T23:59:59Z"),
        ])
    func timestamps(seconds: Int, expected: String) {
        #expect(StderrLine.timestamp(secondsSinceEpoch: seconds) == expected)
    }
}
