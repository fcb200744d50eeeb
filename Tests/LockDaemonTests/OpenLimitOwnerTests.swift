import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// Open limits in the daemon, on a hand-moved clock: the allowance owner claims its profile's
/// apps as counted with its batch (the enforcers are told), decides each launch, records it in
/// the ledger saved by the one commit path, and a restarted daemon still counts it.
@Suite("Open limits through the allowance owner and the commit path")
struct OpenLimitOwnerTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
        try scratch.write("opt/game/game", "#!/bin/sh\necho game\n")
        chmod(scratch.path + "/opt/game/game", 0o755)
        try scratch.write("etc/simplylock/profiles.d/games.toml", "name = \"games\"\napps = [\"\(scratch.path)/opt/game/game\"]\n")
    }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake])
    }

    @Test func launchesAreCountedSavedWithTheBatchAndRefusedPastTheLimitAcrossARestart() async throws {
        let first = try await daemon()
        _ = try await first.api.call(
            Endpoints.createAllowance, body: CreateAllowanceRequest(name: "play", profile: "games", opens: 2, cooldownSeconds: 60))
        // The enforcers were told to count the profile's app, by the batch the allowance went in with.
        let counted = try #require(await fake.current?.counted.first)
        #expect(counted.allowances == ["play"] && !counted.strict && counted.executables == [scratch.path + "/opt/game/game"])
        #expect(await fake.current?.apps.isEmpty == true, "counting is not blocking")

        let owner = first.core.allowances
        #expect(await owner.verdict(for: counted, claim: { true }) == .allowed)
        clock.advance(30)
        guard case .refused(let cooling)? = await owner.verdict(for: counted, claim: { true }) else {
            Issue.record("a launch within the cooldown was allowed")
            return
        }
        #expect(cooling.reason == .coolingDown && cooling.wait == .seconds(30))
        // A launch the guard already answered by its rule is not counted.
        clock.advance(31)
        #expect(await owner.verdict(for: counted, claim: { false }) == nil)
        #expect(await owner.verdict(for: counted, claim: { true }) == .allowed)
        let info = try #require(try await first.api.call(Endpoints.allowances).allowances.first)
        #expect(info.opensToday == 2 && info.opensLeft == 0 && info.cooldownLeftSeconds == 60)

        // A restart over the same store: the launches are still used.
        clock.advance(120)
        let second = try await daemon()
        let restored = try #require(try await second.api.call(Endpoints.allowances).allowances.first)
        #expect(restored.opensToday == 2 && restored.opensLeft == 0 && restored.cooldownLeftSeconds == nil)
        let status = try await second.api.status()
        #expect(status.allowances?.first?.opensLeft == 0)
        guard case .refused(let none)? = await second.core.allowances.verdict(for: counted, claim: { true }) else {
            Issue.record("the third launch was allowed after a restart")
            return
        }
        #expect(none.reason == .noOpensLeft && none.allowance == "play" && none.profile == "games")
    }

    @Test func aStrictAllowanceThatRefusesCannotBeRemovedAndRemovingAnotherStopsCounting() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.call(
            Endpoints.createAllowance, body: CreateAllowanceRequest(name: "firm", profile: "games", strict: true, opens: 1))
        let counted = try #require(await fake.current?.counted.first)
        #expect(counted.strict)
        #expect(await daemon.core.allowances.verdict(for: counted, claim: { true }) == .allowed)
        await #expect(throws: APIError.self) { _ = try await daemon.api.call(Endpoints.deleteAllowance, ["firm"]) }
        // The next day its launches are back, and it can go; nothing is counted any more.
        clock.advance(86_400)
        _ = try await daemon.api.call(Endpoints.deleteAllowance, ["firm"])
        #expect(await fake.current?.counted.isEmpty == true)
    }
}
