import Foundation
import LockCore
import LockStore
import TestSupport
import Testing

/// Allowance files: written by the store, read back the same, hand edits with mistakes
/// reported as file:line with the field.
@Suite("Allowance files")
struct AllowanceFileTests {
    @Test func writtenFilesReadBackTheSame() throws {
        let scratch = try Scratch()
        var store = AllowanceStore(directory: scratch.paths.allowancesDirectory)
        let allowance = Allowance(
            name: "kids-games", profile: "gaming", daily: .seconds(3600), weekly: .seconds(5 * 3600), days: .weekdays,
            warn: .seconds(300), strict: true, opens: 3, cooldown: .seconds(1800))
        try store.create(allowance)
        var again = AllowanceStore(directory: scratch.paths.allowancesDirectory)
        #expect(again.reload(profiles: ["gaming"]).isEmpty)
        #expect(again.allowances["kids-games"] == allowance)
        #expect(throws: AllowanceStore.Failure.exists("kids-games")) { try again.create(allowance) }
        try again.delete("kids-games")
        #expect(!FileManager.default.fileExists(atPath: again.file(for: "kids-games")))
    }

    @Test func handEditsWithMistakesNameFileLineAndFieldAndKeepTheLastGoodVersion() throws {
        let scratch = try Scratch()
        let directory = scratch.paths.allowancesDirectory
        try scratch.write("etc/simplylock/allowances.d/video-time.toml", "name = \"video-time\"\nprofile = \"video\"\ndaily = \"30m\"\n")
        var store = AllowanceStore(directory: directory)
        #expect(store.reload(profiles: nil).isEmpty)
        try scratch.write(
            "etc/simplylock/allowances.d/video-time.toml", "name = \"video-time\"\nprofile = \"video\"\ndaily = \"30 parsecs\"\n")
        let problems = store.reload(profiles: nil)
        #expect(problems.count == 1)
        #expect(problems.first?.line == 3, "\(problems)")
        #expect(problems.first?.description.contains("daily") == true, "\(problems)")
        #expect(store.allowances["video-time"]?.daily == .seconds(1800), "the last good version is kept")
        try scratch.write("etc/simplylock/allowances.d/other.toml", "name = \"other\"\nprofile = \"video\"\n")
        #expect(store.reload(profiles: nil).contains { $0.description.contains("at least one of daily") })
        try scratch.write("etc/simplylock/allowances.d/typo.toml", "name = \"typo\"\nprofile = \"video\"\ndayly = \"1h\"\n")
        #expect(store.reload(profiles: nil).contains { $0.file.hasSuffix("typo.toml") && $0.line == 3 })
    }
}
