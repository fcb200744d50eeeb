import Foundation
import LockClient
import LockProtocol
import Testing

@testable import LockCommands

@Suite("lockctl's conventions: errors, field names, suggestions, tables, JSON")
struct OutputConventionTests {
    @Test func requestFieldsAreNamedAsTheCommandNamesThem() {
        let fields = FieldNames(["seconds": "<duration>", "for": "--for"])
        #expect(fields.rename("seconds: an extension must be at least 1s") == "<duration>: an extension must be at least 1s")
        #expect(
            fields.rename("for: is required with --on: how long each block lasts")
                == "--for is required with --on: how long each block lasts")
        // Unlisted fields become options; sentences that merely contain a colon stay.
        #expect(fields.rename("warnSeconds: must be at least 0s") == "--warn-seconds: must be at least 0s")
        #expect(fields.rename("deep-work is a strict block: it cannot be stopped") == "deep-work is a strict block: it cannot be stopped")
        #expect(fields.rename("no colon here") == "no colon here")
    }

    @Test func daemonErrorsKeepTheirHintOnALineOfItsOwn() {
        let error = ClientError.api(APIError(.invalidArgument, "seconds: an extension must be at least 1s", hint: "blocks only get longer"))
        let failure = CommandFailure(error, fields: FieldNames(["seconds": "<duration>"]))
        #expect(failure.code == ExitCodes.usage)
        #expect(
            ErrorOutput.text(failure, json: false) == "lockctl: <duration>: an extension must be at least 1s\nhint: blocks only get longer")
        let json = ErrorOutput.text(failure, json: true)
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: String]]
        #expect(
            object?["error"] == [
                "code": "invalid_argument", "message": "<duration>: an extension must be at least 1s",
                "hint": "blocks only get longer",
            ])
        // A refusal is not a field problem, even when it has a colon.
        let refusal = CommandFailure(.api(APIError(.refused, "news: strict")), fields: FieldNames(["news": "X"]))
        #expect(refusal.message == "news: strict")
        #expect(refusal.code == ExitCodes.refused)
    }

    @Test func unreachableIsItsOwnCode() {
        let failure = CommandFailure(.unreachable(socket: "/x", reason: "No such file or directory"), unreachableHint: "start it")
        #expect(failure.code == ExitCodes.unreachable)
        #expect(failure.errorCode == "unreachable")
        #expect(failure.hint == "start it")
    }

    @Test func mistypedCommandsGetSuggestions() {
        let names = ["status", "start", "stop", "extend", "schedules", "services"]
        #expect(CommandTree.suggestions(for: "stauts", among: names) == ["status"])
        #expect(CommandTree.suggestions(for: "stat", among: names) == ["status"])
        #expect(CommandTree.suggestions(for: "sto", among: names) == ["stop"])
        #expect(CommandTree.suggestions(for: "extnd", among: names) == ["extend"])
        #expect(CommandTree.suggestions(for: "xyzzy", among: names).isEmpty)
        #expect(CommandTree.swapsDistance(Array("stauts"), Array("status")) == 1)
    }

    @Test func theCommandTreeFindsTheUnknownWord() {
        let tree = CommandTree(type: Lockctl.self)
        #expect(tree.unknownCommand(in: ["stauts"])?.word == "stauts")
        #expect(tree.unknownCommand(in: ["--root", "/x", "profiles", "lst"])?.word == "lst")
        #expect(tree.unknownCommand(in: ["profiles", "show", "anything"]) == nil)
        #expect(tree.unknownCommand(in: ["start", "news", "45m", "--root", "/x"]) == nil)
        #expect(tree.unknownCommand(in: ["help", "start"]) == nil)
        #expect(tree.path(of: ["schedules", "--json", "add", "x"]).map(\.name) == ["lockctl", "schedules", "add"])
    }

    @Test func negativeDurationsAreNamedNotTakenForOptions() throws {
        let tree = CommandTree(type: Lockctl.self)
        for arguments in [["extend", "focus", "-5m"], ["start", "news", "-5m"]] {
            #expect(throws: CommandFailure.self) { try ArgumentCheck.check(arguments, tree: tree) }
        }
        do {
            try ArgumentCheck.check(["extend", "focus", "-5m"], tree: tree)
        } catch let failure as CommandFailure {
            #expect(failure.message == "<duration>: -5m is negative")
            #expect(failure.code == ExitCodes.usage)
        }
        // A value after an option is the option's business.
        try ArgumentCheck.check(["start", "news", "5m", "--until", "-1"], tree: tree)
    }

    @Test func parserMessagesReadAsLockctlMessages() {
        #expect(ArgumentCheck.reword("Missing expected argument '<duration>'") == "missing <duration>")
        #expect(ArgumentCheck.reword("The value 'abc' is invalid for '--limit <limit>'") == "--limit: \"abc\" is not valid")
        #expect(ArgumentCheck.reword("Unknown option '--lim'. Did you mean '--limit'?") == "unknown option --lim (did you mean --limit?)")
        #expect(ArgumentCheck.reword("Unexpected argument 'x'") == "unexpected argument \"x\"")
        #expect(ArgumentCheck.reword("give a duration (e.g. 45m) or --until TIME") == "give a duration (e.g. 45m) or --until TIME")
    }

    @Test func tablesLeaveOutEmptyColumnsAndCountVisibleWidth() {
        let rows = [["NAME", "NOTE", "STATE"], ["a", "", Terminal.paint("ok", .green, enabled: true)], ["bbb", "", "problem"]]
        #expect(TextFormat.table(rows, header: true) == "NAME  STATE\na     \u{1B}[32mok\u{1B}[0m\nbbb   problem")
    }

    @Test func emptyCollectionsAreWrittenAsSuch() {
        struct Sample: Encodable {
            var sessions: [Int] = []
            var details: [String: Int] = [:]
            var nested = [[Int]()]
        }
        #expect(JSONText.pretty(Sample()) == "{\n  \"details\" : {},\n  \"nested\" : [\n    []\n  ],\n  \"sessions\" : []\n}")
    }

    @Test func pluralsAgreeWithTheirCounts() {
        #expect(TextFormat.count(1, "domain") == "1 domain")
        #expect(TextFormat.count(2, "domain") == "2 domains")
        #expect(TextFormat.count(0, "address", "addresses") == "0 addresses")
    }

    @Test("the root help lists the global options and keeps the exit status rows whole")
    func rootHelp() {
        let text = RootHelp.text(width: 80)
        for option in ["--root <dir>", "--socket <path>", "--json"] { #expect(text.contains(option)) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let exit = lines.firstIndex(of: "EXIT STATUS:") ?? .max
        #expect(exit < (lines.firstIndex(of: "COMMANDS:") ?? 0), "the exit status comes before the commands, right after the usage")
        for line in lines { #expect(line.count <= 80, "longer than the terminal: \(line)") }
        for (code, _) in ExitCodes.meanings { #expect(lines.contains { $0.hasPrefix("  \(code)  ") }) }
    }
}
