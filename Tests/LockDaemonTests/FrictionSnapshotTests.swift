import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// A session keeps the friction policy it started with: `[friction]` added or removed later
/// changes only the sessions that start after it.
@Suite("Emergency access keeps the policy a session started with")
struct FrictionSnapshotTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func daemon(friction: FrictionSettings?) async throws -> TestDaemon {
        var configuration = DaemonConfiguration()
        configuration.friction = friction
        return try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake], configuration: configuration)
    }

    private func ask(_ daemon: TestDaemon, _ reference: String) async -> APIError? {
        do {
            _ = try await daemon.api.call(Endpoints.unlockSession, [reference], body: UnlockRequest())
            return nil
        } catch { return error }
    }

    @Test func frictionAddedLaterDoesNotMakeAStrictMeansStrictBlockUnlockable() async throws {
        let daemon = try await daemon(friction: nil)
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 3600, strict: true))
        #expect(await ask(daemon, "social")?.code == .refused)
        try scratch.write("etc/simplylock/simplylockd.toml", "[friction]\ndelay = \"10s\"\ntyping = 10\nemergency_per_week = 3\n")
        let reload = try await daemon.api.reload()
        #expect(reload.problems.isEmpty, "\(reload.problems)")
        let refused = await ask(daemon, "social")
        #expect(refused?.code == .refused, "the block started as strict means strict: \(String(describing: refused))")
        // A block started now takes the new policy.
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 3600, strict: true))
        #expect(await ask(daemon, "news") == nil)
    }

    @Test func frictionRemovedLaterKeepsTheWayOutABlockStartedWith() async throws {
        let daemon = try await daemon(friction: FrictionSettings(delay: .seconds(5), typing: 10, perWeek: 2))
        _ = try await daemon.api.start(StartRequest(profile: "social", seconds: 3600, strict: true))
        try scratch.write("etc/simplylock/simplylockd.toml", "# no friction\n")
        _ = try await daemon.api.reload()
        let asked = try await daemon.api.call(Endpoints.unlockSession, ["social"], body: UnlockRequest())
        let challenge = try #require(asked.challenge)
        #expect(challenge.characters == 10)
        #expect(challenge.pieces.count == 2)
        // The text never comes whole: the groups in their order are the answer.
        clock.advance(6)
        let typed = challenge.pieces.sorted { $0.position < $1.position }.map(\.text).joined()
        let done = try await daemon.api.call(
            Endpoints.unlockSession, ["social"], body: UnlockRequest(challenge: challenge.id, answer: typed))
        #expect(done.state == .unlocked)
    }

    @Test func thePolicyIsKeptAcrossARestart() async throws {
        let first = try await daemon(friction: nil)
        _ = try await first.api.start(StartRequest(profile: "social", seconds: 3600, strict: true))
        let restarted = try await daemon(friction: FrictionSettings(delay: .seconds(5), typing: 10, perWeek: 2))
        #expect(await ask(restarted, "social")?.code == .refused)
        let session = try #require(await restarted.sessions.active.first)
        #expect(session.friction == .strict)
    }
}
