import Foundation
import LockCore
import Testing

/// Path rules (only the browser companion enforces them) and the browser meter's place in the
/// minute attribution.
@Suite("Browser companion: path rules and the browser meter")
struct BrowserCompanionCoreTests {
    func rule(_ text: String) throws -> PathRule {
        let (host, path) = try PathRule.split(text)
        return PathRule(host: DomainName(normalized: host), path: path)
    }

    @Test func pathRulesCoverWholeSegmentsOnTheSiteAndItsSubdomains() throws {
        let shorts = try rule("youtube.com/shorts/")
        #expect(shorts.description == "youtube.com/shorts")
        #expect(shorts.covers(host: "www.youtube.com", path: "/shorts/abc"))
        #expect(shorts.covers(host: "youtube.com", path: "/shorts"))
        #expect(!shorts.covers(host: "youtube.com", path: "/watch"))
        #expect(!shorts.covers(host: "youtube.com", path: "/shortsale"))
        #expect(!shorts.covers(host: "notyoutube.com", path: "/shorts"))
        #expect(try rule("https://reddit.com/r/all").description == "reddit.com/r/all")
    }

    @Test func badPathRulesAreRefusedWithWhy() {
        for (text, reason) in [
            ("youtube.com", "has no path"), ("youtube.com/", "covers the whole site"), ("/shorts", "has no path"),
            ("youtube.com/a b", "a space"), ("youtube.com/a?b", "\"?\""), (String(repeating: "a", count: 600), "longer than"),
        ] {
            #expect(throws: FieldError.self) { try PathRule.split(text) }
            do { _ = try PathRule.split(text) } catch { #expect(error.reason.contains(reason), "\(text): \(error.reason)") }
        }
    }

    @Test func theMostSpecificRuleWinsAndAnExceptionWinsATie() throws {
        let block = [try rule("reddit.com/r")]
        let allow = [try rule("reddit.com/r/linux")]
        #expect(PathRule.blockingRule(host: "www.reddit.com", path: "/r/all", block: block, allow: allow) == block[0])
        #expect(PathRule.blockingRule(host: "www.reddit.com", path: "/r/linux/top", block: block, allow: allow) == nil)
        #expect(PathRule.blockingRule(host: "reddit.com", path: "/r", block: block, allow: block) == nil)
    }

    @Test func removingAPathRuleFromAStrictBlockIsAWeakening() throws {
        var old = BlockRules(block: DomainSet([]))
        old.paths = [try rule("youtube.com/shorts")]
        var new = old
        #expect(old.weakenings(to: new).isEmpty)
        new.paths = []
        #expect(old.weakenings(to: new) == ["unblocks path youtube.com/shorts"])
        new.paths = old.paths
        new.allowPaths = [try rule("youtube.com/shorts")]
        #expect(old.weakenings(to: new) == ["unblocks path youtube.com/shorts"])
    }

    @Test func pathRulesSurviveTheSessionSnapshotsCoding() throws {
        var rules = BlockRules(block: DomainSet(["example.com"]))
        rules.paths = [try rule("youtube.com/shorts")]
        rules.allowPaths = [try rule("youtube.com/shorts/ok")]
        let decoded = try JSONDecoder().decode(BlockRules.self, from: JSONEncoder().encode(rules))
        #expect(decoded == rules)
        #expect(try JSONDecoder().decode(BlockRules.self, from: JSONEncoder().encode(BlockRules(block: DomainSet([])))).paths.isEmpty)
    }

    func sample(_ item: UsageItem, _ meter: UsageMeter, end: String, _ seconds: Double) -> UsageSample {
        UsageSample(item: item, meter: meter, end: ISO8601DateFormatter().date(from: end)!, seconds: seconds)
    }

    func attribute(_ samples: [UsageSample]) -> [UsageMinute] {
        var attributor = MinuteAttributor()
        for sample in samples { attributor.add(sample) }
        return attributor.closeAll()
    }

    @Test func whenTheBrowserAndTheDNSFilterSeeTheSameSiteTheBrowsersSecondsCount() {
        let youtube = UsageItem(.site, "youtube.com")
        let minutes = attribute([
            sample(youtube, .dns, end: "2026-11-27T10:01:00Z", 60), sample(youtube, .browser, end: "2026-11-27T10:00:40Z", 25),
        ])
        #expect(minutes.map(\.meter) == [.browser])
        #expect(minutes.map(\.seconds) == [25])
    }

    @Test func aSiteTheBrowserShowedWinsOverOneOnlyTheNetworkSaw() {
        let wiki = UsageItem(.site, "wikipedia.org")
        let video = UsageItem(.site, "youtube.com")
        let minutes = attribute([
            sample(video, .firewall, end: "2026-11-27T10:01:00Z", 60), sample(wiki, .browser, end: "2026-11-27T10:00:40Z", 20),
            sample(UsageItem(.app, "firefox"), .appsActive, end: "2026-11-27T10:01:00Z", 60),
        ])
        #expect(minutes.map(\.item) == [wiki])
        #expect(minutes.map(\.meter) == [.browser])
    }
}
