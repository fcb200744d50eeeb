import Foundation
import LockCore
import LockProtocol
import Logging
import Synchronization
import Testing

@testable import LockEnforcement

/// Records scripts instead of running them; can be told to fail.
final class RecordingBackend: NFTablesBackend {
    private let state = Mutex<(scripts: [String], failing: Bool, inPlaceFails: Bool)>(([], false, false))
    var scripts: [String] { state.withLock { $0.scripts } }
    func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }
    /// Refuse in-place updates, as the kernel does when the existing table has another shape.
    func setInPlaceFails(_ fails: Bool) { state.withLock { $0.inPlaceFails = fails } }

    func run(_ script: String) throws -> String {
        try state.withLock {
            if $0.failing { throw NFTablesError(message: "Error: Could not process rule: Operation not permitted") }
            if $0.inPlaceFails && script.contains("\nflush table") {
                throw NFTablesError(message: "Error: Could not process rule: Operation not supported")
            }
            $0.scripts.append(script)
            return ""
        }
    }
}

/// Answers from a table that tests change between runs.
final class FakeResolver: NameResolver {
    private let state = Mutex<[String: NameResolution]>([:])
    func set(_ name: String, _ addresses: [String], error: String? = nil) {
        state.withLock { $0[name] = NameResolution(addresses: addresses.map { try! IPNetwork(parsing: $0) }, error: error) }
    }
    func resolve(_ names: [String]) async -> [String: NameResolution] {
        state.withLock { table in
            Dictionary(uniqueKeysWithValues: names.map { ($0, table[$0] ?? NameResolution()) })
        }
    }
    func nameservers() async -> [IPNetwork] { [try! IPNetwork(parsing: "192.0.2.53")] }
}

/// A boot clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = Mutex(BootTime(seconds: 1000))
    func advance(_ duration: Duration) { now.withLock { $0 = $0 + duration } }
    var reading: @Sendable () -> BootTime { { [self] in now.withLock { $0 } } }
}

@Suite struct NFTablesEnforcerTests {
    let backend = RecordingBackend()
    let resolver = FakeResolver()
    let clock = ManualClock()

    func makeEnforcer(grace: Duration = .seconds(3600)) -> NFTablesEnforcer {
        NFTablesEnforcer(
            resolver: resolver, doh: DoHList(names: ["dns.example"], addresses: [try! IPNetwork(parsing: "192.0.2.100")]),
            backend: backend, settings: .init(grace: grace),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            bootClock: clock.reading)
    }

    /// The elements of the blocked-address sets in a script, as written there.
    func blocked(_ script: String) -> String {
        script.components(separatedBy: "add element inet simplylock ").dropFirst()
            .filter { $0.hasPrefix("block") }
            .map { $0.drop { $0 != "{" }.dropFirst().prefix { $0 != "}" }.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: ", ")
    }

    @Test func commitsAtOnceThenAgainWithResolvedAddresses() async throws {
        resolver.set("blocked.example", ["203.0.113.5", "2001:db8::5"])
        resolver.set("dns.example", ["198.51.100.53"])
        let enforcer = makeEnforcer()
        try await enforcer.apply(DesiredBlock(domains: ["blocked.example"], addresses: [try IPNetwork(parsing: "192.0.2.0/24")]))
        await enforcer.settle()
        #expect(backend.scripts.count == 2)
        #expect(blocked(backend.scripts[0]).contains("192.0.2.0/24"))
        #expect(!blocked(backend.scripts[0]).contains("203.0.113.5"), "the first commit does not wait for DNS")
        #expect(blocked(backend.scripts[1]).contains("203.0.113.5"))
        #expect(blocked(backend.scripts[1]).contains("2001:db8::5"))
        #expect(backend.scripts[1].contains("198.51.100.53"), "DoH names are resolved too")

        let report = await enforcer.status()
        #expect(report.name == "nftables")
        #expect(report.applied)
        #expect(report.elements == 1 + 1 + 1 + 2 + 1)  // blocknet4, block4, block6, doh4 (2), resolvers4
        #expect(report.lastError == nil)
        #expect(report.details["mode"]?.description == "blocklist")
        #expect(report.details["block4"]?.description == "2")
        #expect(report.details["block6"]?.description == "1")
        #expect(report.details["names"]?.description == "2")
        #expect(report.details["lastResolution"]?.description != nil)
        #expect(report.details["nameservers"]?.description == "192.0.2.53")
    }

    @Test func reapplyingTheSameStateCommitsOnceAndChangesNothing() async throws {
        resolver.set("blocked.example", ["203.0.113.5"])
        let enforcer = makeEnforcer()
        let desired = DesiredBlock(domains: ["blocked.example"])
        try await enforcer.apply(desired)
        await enforcer.settle()
        let count = backend.scripts.count
        try await enforcer.apply(desired)
        await enforcer.settle()
        #expect(backend.scripts.count == count + 1)
        #expect(backend.scripts.last == backend.scripts[count - 1])
    }

    @Test func rotatingAddressesStayUntilTheGraceRunsOut() async throws {
        let enforcer = makeEnforcer(grace: .seconds(600))
        resolver.set("cdn.example", ["203.0.113.1"])
        try await enforcer.apply(DesiredBlock(domains: ["cdn.example"]))
        await enforcer.settle()
        resolver.set("cdn.example", ["203.0.113.9"])
        clock.advance(.seconds(300))
        try await enforcer.apply(DesiredBlock(domains: ["cdn.example"]))
        await enforcer.settle()
        #expect(blocked(backend.scripts.last!).contains("203.0.113.1, 203.0.113.9"))
        clock.advance(.seconds(301))
        try await enforcer.apply(DesiredBlock(domains: ["cdn.example"]))
        await enforcer.settle()
        #expect(!blocked(backend.scripts.last!).contains("203.0.113.1"))
        #expect(blocked(backend.scripts.last!).contains("203.0.113.9"))
    }

    @Test func aDNSOutageNeverLiftsTheBlock() async throws {
        let enforcer = makeEnforcer(grace: .seconds(60))
        resolver.set("blocked.example", ["203.0.113.5"])
        try await enforcer.apply(DesiredBlock(domains: ["blocked.example"]))
        await enforcer.settle()
        resolver.set("blocked.example", [], error: "A: no answer from 192.0.2.53 within 2.0 seconds")
        clock.advance(.seconds(86_400))
        try await enforcer.apply(DesiredBlock(domains: ["blocked.example"]))
        await enforcer.settle()
        #expect(blocked(backend.scripts.last!).contains("203.0.113.5"))
        let report = await enforcer.status()
        #expect(report.applied)
        #expect(report.details["namesFailing"]?.description == "1")
        #expect(report.details["firstFailure"]?.description.hasPrefix("blocked.example: A: no answer") == true)
    }

    @Test func liftingANameDropsItsAddressesAtOnce() async throws {
        let enforcer = makeEnforcer()
        resolver.set("a.example", ["203.0.113.1"])
        resolver.set("b.example", ["203.0.113.2"])
        try await enforcer.apply(DesiredBlock(domains: ["a.example", "b.example"]))
        await enforcer.settle()
        #expect(blocked(backend.scripts.last!) == "203.0.113.1, 203.0.113.2")
        let before = backend.scripts.count
        try await enforcer.apply(DesiredBlock(domains: ["b.example"]))
        await enforcer.settle()
        #expect(!blocked(backend.scripts[before]).contains("203.0.113.1"), "gone in the immediate commit")
        #expect(blocked(backend.scripts[before]).contains("203.0.113.2"), "still blocked in the immediate commit")
    }

    @Test func nothingBlockedRemovesTheTable() async throws {
        let enforcer = makeEnforcer()
        try await enforcer.apply(DesiredBlock(addresses: [try IPNetwork(parsing: "203.0.113.0/24")]))
        await enforcer.settle()
        try await enforcer.apply(.empty)
        await enforcer.settle()
        #expect(backend.scripts.last == "table inet simplylock\ndelete table inet simplylock\n")
        let report = await enforcer.status()
        #expect(report.applied)
        #expect(report.elements == 0)
        #expect(report.details["mode"]?.description == "off")
    }

    @Test func aRejectedCommitThrowsAndIsReported() async throws {
        let enforcer = makeEnforcer()
        backend.setFailing(true)
        await #expect(throws: NFTablesError.self) {
            try await enforcer.apply(DesiredBlock(addresses: [try IPNetwork(parsing: "203.0.113.0/24")]))
            await enforcer.settle()
        }
        var report = await enforcer.status()
        #expect(!report.applied)
        #expect(report.lastError?.contains("Operation not permitted") == true)
        backend.setFailing(false)
        try await enforcer.apply(DesiredBlock(addresses: [try IPNetwork(parsing: "203.0.113.0/24")]))
        await enforcer.settle()
        report = await enforcer.status()
        #expect(report.applied)
        #expect(report.lastError == nil)
    }

    @Test func updatesInPlaceAndRecreatesOnlyWhenThatIsRefused() async throws {
        let enforcer = makeEnforcer()
        try await enforcer.apply(DesiredBlock(addresses: [try IPNetwork(parsing: "203.0.113.0/24")]))
        await enforcer.settle()
        #expect(backend.scripts.allSatisfy { $0.contains("\nflush table inet simplylock\n") && !$0.contains("delete table") })
        backend.setInPlaceFails(true)
        try await enforcer.apply(DesiredBlock(addresses: [try IPNetwork(parsing: "203.0.113.0/25")]))
        await enforcer.settle()
        #expect(backend.scripts.last!.hasPrefix("table inet simplylock\ndelete table inet simplylock\n"))
        #expect(backend.scripts.last!.contains("203.0.113.0/25"))
        #expect(await enforcer.status().applied)
    }

    @Test func allowlistResolvesAllowedNames() async throws {
        resolver.set("docs.example", ["198.51.100.10"])
        let enforcer = makeEnforcer()
        try await enforcer.apply(DesiredBlock(allowOnly: AllowList(domains: ["docs.example"])))
        await enforcer.settle()
        let script = backend.scripts.last!
        #expect(script.contains("add element inet simplylock allow4"))
        #expect(script.contains("198.51.100.10"))
        let report = await enforcer.status()
        #expect(report.details["mode"]?.description == "allowlist")
        #expect(report.details["allow4"]?.description == "1")
    }

    @Test func savedAddressesBlockBeforeDNSWorksAndAgeOutNormally() async throws {
        let enforcer = makeEnforcer(grace: .seconds(600))
        await enforcer.seed([
            "blocked.example": [try IPNetwork(parsing: "203.0.113.5")],
            "other.example": [try IPNetwork(parsing: "203.0.113.6")],
        ])
        resolver.set("blocked.example", [], error: "A: no answer")  // at boot: no network yet
        try await enforcer.apply(DesiredBlock(domains: ["blocked.example"]))
        await enforcer.settle()
        #expect(blocked(backend.scripts[0]) == "203.0.113.5", "in force in the very first commit")
        #expect(await enforcer.knownAddresses() == ["blocked.example": [try IPNetwork(parsing: "203.0.113.5")]])
        resolver.set("blocked.example", ["203.0.113.9"])
        clock.advance(.seconds(601))
        try await enforcer.apply(DesiredBlock(domains: ["blocked.example"]))
        await enforcer.settle()
        #expect(blocked(backend.scripts.last!) == "203.0.113.9")
    }

    @Test func beforeAnyApplyNothingIsClaimed() async {
        let report = await makeEnforcer().status()
        #expect(!report.applied)
        #expect(report.elements == 0)
        #expect(report.lastApplied == nil)
        #expect(report.details["watch"]?.description == "not running")
        #expect(backend.scripts.isEmpty)
    }

    /// A sinkhole answer (what a filtering or hosts-reading resolver, or our own DNS filter,
    /// answers) is no address of the name: never in the sets, never claimed, and a failure.
    @Test func sinkholeAnswersAreNeitherBlockedNorClaimed() async throws {
        let enforcer = makeEnforcer()
        for sinkhole in [["0.0.0.0", "::"], ["127.0.1.1"], ["::ffff:0.0.0.0"]] {
            resolver.set("blocked.example", sinkhole)
            try await enforcer.apply(DesiredBlock(domains: ["blocked.example"]))
            await enforcer.settle()
            #expect(blocked(backend.scripts.last!).isEmpty, "\(sinkhole)")
            let coverage = await enforcer.coverage(of: "blocked.example")
            #expect(coverage?.blocks == false, "\(sinkhole)")
            #expect(coverage?.detail.contains("a blocking answer, not its address") == true, "\(coverage?.detail ?? "")")
            #expect(await enforcer.status().details["namesFailing"] == .count(1))
        }
        // A real address beside a sinkhole one is kept, the sinkhole is not.
        resolver.set("blocked.example", ["0.0.0.0", "203.0.113.5"])
        try await enforcer.apply(DesiredBlock(domains: ["blocked.example"]))
        await enforcer.settle()
        #expect(blocked(backend.scripts.last!) == "203.0.113.5")
        #expect(await enforcer.coverage(of: "blocked.example")?.blocks == true)
    }
}
