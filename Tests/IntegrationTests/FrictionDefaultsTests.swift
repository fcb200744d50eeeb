import Foundation
import LockClient
import LockCore
import LockProtocol
import TestSupport
import Testing

/// Emergency access is off until configured, and a `[friction]` section turns it on with the
/// defaults the code, config/simplylockd.toml, simplylockd.toml(5) and the README all give.
@Suite("Emergency access defaults")
struct FrictionDefaultsTests {
    @Test("the shipped configuration allows no early end: strict means strict")
    func offByDefault() throws {
        let root = try TestRoot()
        try root.write(
            "etc/simplylock/simplylockd.toml",
            try String(contentsOfFile: TestTools.repository + "/config/simplylockd.toml", encoding: .utf8))
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.decode(InsightsResponse.self, "insights").emergency.allowed == 0)
        #expect(try daemon.lockctl("start", "news", "30m", "--strict").status == 0)
        let unlock = try daemon.lockctl("unlock", "news")
        #expect(unlock.status == 5, "\(unlock)")
        #expect(unlock.stderr.contains("allows no early end"), "\(unlock)")
        #expect(try daemon.decode(StatusResponse.self, "status").sessions.map(\.profile) == ["news"])
    }

    @Test("an empty [friction] allows one early end a week, after a 60 s wait and 40 characters")
    func emptySectionTakesTheDefaults() async throws {
        let root = try TestRoot()
        try root.write("etc/simplylock/simplylockd.toml", "[friction]\n")
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.decode(InsightsResponse.self, "insights").emergency.allowed == FrictionPolicy.defaultPerWeek)
        #expect(FrictionPolicy.defaultPerWeek == 1)
        #expect(try daemon.lockctl("start", "news", "30m", "--strict").status == 0)
        let challenge = try #require(try await daemon.client.unlock("news").challenge)
        #expect(challenge.characters == FrictionPolicy.defaultTyping && FrictionPolicy.defaultTyping == 40)
        #expect(abs(challenge.waitSeconds - 60) < 2 && FrictionPolicy.defaultDelay == .seconds(60), "\(challenge.waitSeconds)")
    }

    @Test("config/simplylockd.toml, simplylockd.toml(5) and the README give the code's defaults")
    func documentedDefaults() throws {
        // The documents write the wait in seconds.
        let delay = "\(FrictionPolicy.defaultDelay.components.seconds)s"
        let typing = FrictionPolicy.defaultTyping
        let perWeek = FrictionPolicy.defaultPerWeek
        let config = try String(contentsOfFile: TestTools.repository + "/config/simplylockd.toml", encoding: .utf8)
        for line in ["# delay = \"\(delay)\"", "# typing = \(typing)", "# emergency_per_week = \(perWeek)"] {
            #expect(config.contains(line), "config/simplylockd.toml lacks \(line)")
        }
        #expect(config.contains("strict means strict, no early end at all"))
        let manual = try String(contentsOfFile: TestTools.repository + "/docs/man/simplylockd.toml.5", encoding: .utf8)
        let section = try #require(
            manual.components(separatedBy: ".Ss The \\&[friction\\&] section").last?.components(separatedBy: ".Ss").first)
        #expect(
            section.contains("default\n.Ql \(delay) .") && section.contains("default \(typing).")
                && section.contains("default \(perWeek)."), "\(section)")
        #expect(section.contains("Off by default"))
        let readme = try String(contentsOfFile: TestTools.repository + "/README.md", encoding: .utf8)
        let emergency = try #require(readme.components(separatedBy: "## Emergency access").last)
        for line in ["delay = \"\(delay)\"", "typing = \(typing)", "emergency_per_week = \(perWeek)"] {
            #expect(emergency.contains("\n" + line + " "), "README's [friction] example lacks \(line)")
        }
        #expect(emergency.contains("Without a `[friction]` section anywhere, strict means strict"))
    }
}
