import Foundation
import LockCore
import LockStore
import TestSupport
import Testing

@Suite("Schedule files")
struct ScheduleStoreTests {
    let profiles: Set<String> = ["deep-work", "news", "social"]

    @Test func writtenSchedulesReadBackTheSame() throws {
        let scratch = try Scratch()
        let directory = scratch.paths.schedulesDirectory
        var store = ScheduleStore(directory: directory)
        let schedules = [
            try Schedule(
                name: "mornings", profile: "deep-work", days: "weekdays", from: "9:00", to: "12:30", timeZoneName: "Europe/Berlin"),
            try Schedule(
                name: "standup", profile: "news", on: "Mon..Fri 09:30 America/New_York", duration: .seconds(2700), strict: true,
                warning: .zero),
            try Schedule(
                name: "cronish", profile: "news", cron: "0 8-17/2 * * 1-5", duration: .seconds(93_784), warning: .seconds(90),
                enabled: false),
        ]
        for schedule in schedules { try store.create(schedule) }
        #expect(
            scratch.read("etc/simplylock/schedules.d/mornings.toml")?.contains(
                "days = \"mon-fri\"\nfrom = \"09:00\"\nto = \"12:30\"\ntz = \"Europe/Berlin\"\n") == true)
        #expect(scratch.read("etc/simplylock/schedules.d/cronish.toml")?.contains("for = \"26h3m4s\"") == true)
        var reread = ScheduleStore(directory: directory)
        #expect(reread.reload(profiles: profiles).isEmpty)
        #expect(reread.sorted == schedules.sorted { $0.name < $1.name })
        do {
            try store.create(schedules[0])
            Issue.record("created twice")
        } catch { #expect(error == .exists("mornings")) }
        #expect(try store.setEnabled("cronish", true).enabled)
        try store.delete("cronish")
        #expect(scratch.read("etc/simplylock/schedules.d/cronish.toml") == nil)
        do {
            try store.delete("cronish")
            Issue.record("deleted twice")
        } catch { #expect(error == .notFound("cronish")) }
    }

    @Test func badFilesAreReportedWithFileLineAndField() throws {
        let scratch = try Scratch()
        let files = [
            "hours.toml": "name = \"hours\"\nprofile = \"news\"\ndays = \"mon-fri\"\nfrom = \"25:00\"\nto = \"12:00\"\n",
            "ghost.toml": "name = \"ghost\"\n\nprofile = \"nowhere\"\non = \"daily\"\nfor = \"1h\"\n",
            "zone.toml": "name = \"zone\"\nprofile = \"news\"\non = \"daily\"\nfor = \"1h\"\ntz = \"Mars/Olympus\"\n",
            "length.toml": "name = \"length\"\nprofile = \"news\"\non = \"daily\"\nfor = \"0s\"\n",
            "missing.toml": "name = \"missing\"\nprofile = \"news\"\ncron = \"0 9 * * *\"\n",
            "typo.toml": "name = \"typo\"\nprofile = \"news\"\ndayz = \"all\"\n",
            "renamed.toml": "name = \"other\"\nprofile = \"news\"\non = \"daily\"\nfor = \"1h\"\n",
            "good.toml": "name = \"good\"\nprofile = \"social\"\ndays = \"all\"\nfrom = \"22:00\"\nto = \"07:00\"\nwarn = \"off\"\n",
        ]
        for (file, text) in files { try scratch.write("etc/simplylock/schedules.d/\(file)", text) }
        var store = ScheduleStore(directory: scratch.paths.schedulesDirectory)
        let text = store.reload(profiles: profiles).map(\.description).joined(separator: "\n")
        #expect(store.schedules.keys.sorted() == ["good"])
        #expect(store.schedules["good"]?.warning == .zero)
        for expected in [
            "schedules.d/hours.toml:4: from: 25:00 is not a time of day (hours 0–23)",
            "schedules.d/ghost.toml:3: profile: no profile named \"nowhere\"",
            "schedules.d/zone.toml:5: tz: Mars/Olympus is not a known time zone",
            "schedules.d/length.toml:4: for: \"0s\" is not a duration: it must be longer than zero",
            "schedules.d/missing.toml: for: is required with --cron",
            "schedules.d/typo.toml:3: dayz: unknown field",
            "schedules.d/renamed.toml:1: name: \"other\" does not match the file name renamed.toml",
        ] {
            #expect(text.contains(expected), "missing \(expected) in:\n\(text)")
        }
    }

    @Test func aReloadKeepsTheLastGoodVersionOfABrokenFile() throws {
        let scratch = try Scratch()
        try scratch.write(
            "etc/simplylock/schedules.d/focus.toml", "name = \"focus\"\nprofile = \"news\"\ncron = \"0 9 * * *\"\nfor = \"1h\"\n")
        var store = ScheduleStore(directory: scratch.paths.schedulesDirectory)
        #expect(store.reload(profiles: profiles).isEmpty)
        try scratch.write(
            "etc/simplylock/schedules.d/focus.toml", "name = \"focus\"\nprofile = \"news\"\ncron = \"0 9 * *\"\nfor = \"1h\"\n")
        #expect(store.reload(profiles: profiles).count == 1)
        #expect(store.schedules["focus"]?.rule.description == "--cron '0 9 * * *' --length 1h")
    }

    @Test func theDefaultWarningLeadComesFromTheConfiguration() throws {
        let scratch = try Scratch()
        try scratch.write("etc/simplylock/simplylockd.toml", "schedule_warning = \"10m\"\n")
        #expect(try DaemonConfiguration.load(scratch.paths.configFile).get().scheduleWarning == .seconds(600))
        try scratch.write("etc/simplylock/simplylockd.toml", "schedule_warning = \"off\"\n")
        #expect(try DaemonConfiguration.load(scratch.paths.configFile).get().scheduleWarning == .zero)
        try scratch.write("etc/simplylock/simplylockd.toml", "\nschedule_warning = \"soon\"\n")
        #expect(throws: FileProblem.self) { try DaemonConfiguration.load(scratch.paths.configFile).get() }
        do { _ = try DaemonConfiguration.load(scratch.paths.configFile).get() } catch {
            #expect(error.description.contains("simplylockd.toml:2: schedule_warning:"), "\(error)")
        }
        #expect(DaemonConfiguration().scheduleWarning == .seconds(300))
    }
}
