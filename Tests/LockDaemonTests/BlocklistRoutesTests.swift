import Foundation
import LockCore
import LockEnforcement
import LockPlatform
import LockProtocol
import LockStore
import Logging
import Synchronization
import TestSupport
import Testing

@testable import LockDaemon

/// Imported blocklists through the route table in-process: import, show, profiles naming
/// them, what running blocks do when a list changes, and `check` answering per enforcer.
@Suite("Blocklists and check, in-process")
struct BlocklistRoutesTests {
    let scratch: Scratch
    let clock = ManualClock()
    let store: StateStore
    let library = BlocklistLibrary()
    let fake: FakeEnforcer

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
        fake = FakeEnforcer(name: "dns", lists: library.resolver)
    }

    func daemon(enforcers: [any Enforcer]? = nil, caches: ResolverCacheFlusher? = nil) async throws -> TestDaemon {
        try await TestDaemon.start(
            scratch: scratch, store: store, clock: clock, enforcers: enforcers ?? [fake], library: library,
            caches: caches)
    }

    static let mixed = """
        [Adblock Plus 2.0]
        ! EasyList-like
        ||ads.example^
        ||tracker.example.net^$third-party
        @@||ok.ads.example^
        0.0.0.0 hosts-style.example other.example
        /banner\\d+/
        example.com##.ad
        plain.example
        co.uk

        """

    @Test func anImportIsParsedStoredAndShown() async throws {
        let api = try await daemon().api
        let imported = try await api.importList("ads", Self.mixed, source: "/tmp/ads.txt")
        #expect(!imported.unchanged)
        #expect(imported.list.names == 4)
        #expect(imported.list.exceptions == 1)
        #expect(imported.list.lines == 10)
        #expect(imported.list.source == "/tmp/ads.txt")
        let reasons = Dictionary(uniqueKeysWithValues: imported.list.skippedByReason.map { ($0.reason, $0) })
        #expect(reasons["options"]?.examples.first == .init(line: 4, text: "||tracker.example.net^$third-party"))
        #expect(reasons["regex"]?.count == 1)
        #expect(reasons["elementHiding"]?.count == 1)
        #expect(reasons["publicSuffix"]?.examples.first?.line == 10)
        #expect(imported.list.skipped == 4)
        #expect(try await api.lists().lists.map(\.name) == ["ads"])
        #expect(try await api.list("ads") == imported.list)
        let file = scratch.paths.listsDirectory + "/ads.\(imported.list.version).list"
        #expect(FileManager.default.fileExists(atPath: file))

        let again = try await api.importList("ads", Self.mixed)
        #expect(again.unchanged && again.list.version == imported.list.version)
        await #expect(throws: APIError.self) { try await api.list("ghost") }
        let badName = await #expect(throws: APIError.self) { try await api.importList("Bad Name", "x.example\n") }
        #expect(badName?.code == .invalidArgument)
        let empty = await #expect(throws: APIError.self) { try await api.importList("empty", "# only a comment\n\n/re/\n") }
        #expect(empty?.code == .invalidArgument && empty?.message.contains("regular expressions") == true, "\(String(describing: empty))")
        #expect(try await api.lists().lists.count == 1, "a refused import leaves nothing behind")
    }

    @Test func profilesNameOnlyImportedLists() async throws {
        let api = try await daemon().api
        let unknown = await #expect(throws: APIError.self) {
            try await api.createProfile(CreateProfileRequest(name: "p", domains: ["reddit.com"], lists: ["ads"]))
        }
        #expect(unknown?.code == .invalidArgument && unknown?.message.contains("lockctl lists import ads") == true)
        _ = try await api.importList("ads", "ads.example\n")
        let created = try await api.createProfile(CreateProfileRequest(name: "p", domains: ["reddit.com"], lists: ["ads"]))
        #expect(created.lists == ["ads"] && created.missingLists.isEmpty)
        #expect(scratch.read("etc/simplylock/profiles.d/p.toml")?.contains(#""ads""#) == true)
        await #expect(throws: APIError.self) { try await api.updateProfile("p", UpdateProfileRequest(addLists: ["nope"])) }
        let removed = try await api.updateProfile("p", UpdateProfileRequest(removeLists: ["ads"]))
        #expect(removed.lists.isEmpty)
    }

    /// The lie of issue 11: with only the hosts file, `check m.reddit.com` said "blocked".
    @Test func checkIsBlockedOnlyWhenAnEnforcerInForceBlocksTheName() async throws {
        try scratch.write("etc/hosts", "127.0.0.1 localhost\n")
        let hosts = HostsFileEnforcer(path: scratch.paths.hostsFile, logger: Logger(label: "test"))
        let api = try await daemon(enforcers: [hosts]).api
        _ = try await api.createProfile(CreateProfileRequest(name: "p", domains: ["reddit.com"]))
        _ = try await api.start(StartRequest(profile: "p", seconds: 600))
        let sub = try await api.check("m.reddit.com")
        #expect(!sub.blocked)
        #expect(sub.matches.map(\.rule) == ["reddit.com"])
        #expect(sub.enforcers.map(\.name) == ["hosts"] && sub.enforcers[0].detail.contains("exact names only"))
        let exact = try await api.check("www.reddit.com")
        #expect(exact.blocked && exact.enforcers[0].blocks)
        let dotted = try await api.check("reddit.com.")
        #expect(dotted.blocked && dotted.enforcers[0].detail.contains("trailing-dot"))

        // With a mechanism that covers subtrees (the dns enforcer's stand-in) it is blocked.
        let both = try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [hosts, fake], library: library).api
        let covered = try await both.check("m.reddit.com")
        #expect(covered.blocked)
        #expect(covered.enforcers.map(\.name) == ["hosts", "dns"] && covered.enforcers.map(\.blocks) == [false, true])
    }

    @Test func aReimportMovesRunningBlocksAndStrictOnesKeepWhatItDrops() async throws {
        let test = try await daemon()
        let api = test.api
        let first = try await api.importList("ads", "a.ads.test\nb.ads.test\n").list
        _ = try await api.createProfile(CreateProfileRequest(name: "loose", lists: ["ads"]))
        _ = try await api.createProfile(CreateProfileRequest(name: "firm", lists: ["ads"]))
        let loose = try await api.start(StartRequest(profile: "loose", seconds: 600))
        let firm = try await api.start(StartRequest(profile: "firm", seconds: 1200, strict: true))
        #expect(try await api.check("x.b.ads.test").blocked)

        let second = try await api.importList("ads", "a.ads.test\nc.ads.test\n")
        #expect(Set(second.updatedSessions) == [loose.id, firm.id])
        let held = Dictionary(uniqueKeysWithValues: await test.sessions.active.map { ($0.profile, $0.rules.lists.map(\.version)) })
        #expect(held["loose"] == [second.list.version])
        #expect(Set(held["firm"] ?? []) == [first.version, second.list.version], "a strict block never loses b.ads.test")
        #expect(second.list.heldBy.count == 3)
        let b = try await api.check("x.b.ads.test")
        #expect(b.blocked && b.matches.map(\.profile) == ["firm"] && b.matches[0].list == "ads")
        #expect(try await api.check("c.ads.test").matches.count == 2)
        #expect(library.list(BlocklistReference(name: "ads", version: first.version)) != nil)

        // A version that covers the old one completely replaces it, strict block or not.
        let third = try await api.importList("ads", "ads.test\n")
        let firmLists = await test.sessions.active.first { $0.profile == "firm" }?.rules.lists.map(\.version)
        #expect(firmLists == [third.list.version])
        await test.core.coordinator.collectUnusedLists()
        #expect(library.references.map(\.version) == [third.list.version], "versions no block holds are dropped")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.paths.listsDirectory)
        #expect(files == ["ads.\(third.list.version).list"])

        let refused = await #expect(throws: APIError.self) { try await api.removeList("ads") }
        #expect(refused?.code == .refused && refused?.message.contains("firm") == true)
        clock.advance(1201)
        await test.sessions.expireDue()
        try await api.removeList("ads")
        #expect(try await api.lists().lists.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.paths.listsDirectory).isEmpty)
        let profile = try await api.call(Endpoints.profile, ["loose"])
        #expect(profile.missingLists == ["ads"], "a profile keeps naming a removed list; doctor says so")
        let doctor = try await api.call(Endpoints.doctor)
        #expect(doctor.checks.contains { $0.name == "blocklists" && $0.state == .warning && $0.message.contains("ads") })
    }

    @Test func removingAListLiftsItFromLooseBlocksAtOnce() async throws {
        let test = try await daemon()
        _ = try await test.api.importList("ads", "a.example\n")
        _ = try await test.api.createProfile(CreateProfileRequest(name: "loose", domains: ["reddit.com"], lists: ["ads"]))
        _ = try await test.api.start(StartRequest(profile: "loose", seconds: 600))
        #expect(await fake.current?.verdict(for: "m.a.example", lists: library.resolver) == "a.example")
        try await test.api.removeList("ads")
        #expect(await fake.current?.verdict(for: "m.a.example", lists: library.resolver) == nil)
        #expect(await fake.current?.verdict(for: "m.reddit.com") == "reddit.com")
        await #expect(throws: APIError.self) { try await test.api.removeList("ads") }
    }

    @Test func aBlockThatCannotBeEnforcedKeepsThePreviousVersion() async throws {
        let test = try await daemon()
        let first = try await test.api.importList("ads", "a.example\n").list
        _ = try await test.api.createProfile(CreateProfileRequest(name: "p", lists: ["ads"]))
        _ = try await test.api.start(StartRequest(profile: "p", seconds: 600))
        await fake.setFailure("busy")
        let failed = await #expect(throws: APIError.self) { try await test.api.importList("ads", "b.example\n") }
        #expect(failed?.code == .internalError)
        await fake.setFailure(nil)
        #expect(library.current("ads")?.version == first.version)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.paths.listsDirectory) == ["ads.\(first.version).list"])
    }

    @Test func aRestartGivesBlocksTheVersionsTheyHeld() async throws {
        let test = try await daemon()
        let first = try await test.api.importList("ads", "a.example\nb.example\n").list
        _ = try await test.api.createProfile(CreateProfileRequest(name: "firm", strict: true, lists: ["ads"]))
        _ = try await test.api.start(StartRequest(profile: "firm", seconds: 600))
        let second = try await test.api.importList("ads", "a.example\n").list

        let (loaded, problems) = ListService.load(BlocklistStore(directory: scratch.paths.listsDirectory), logger: Logger(label: "test"))
        #expect(problems.isEmpty)
        #expect(loaded.current("ads")?.version == second.version)
        let restartedFake = FakeEnforcer(name: "dns", lists: loaded.resolver)
        let restarted = try await TestDaemon.start(
            scratch: scratch, store: store, clock: clock,
            enforcers: [restartedFake], library: loaded)
        let restored = await restarted.sessions.active
        #expect(Set(restored.first?.rules.lists.map(\.version) ?? []) == [first.version, second.version], "\(restored)")
        #expect(try await restarted.api.check("x.b.example").blocked)
    }

    @Test func importsAreAdmittedFromTheHeadStreamedAndBounded() async throws {
        let test = try await daemon()
        let router = test.core.router()
        let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
        let nobody = PeerCredentials(pid: 2, uid: 65_534, gid: 65_534, groups: [65_534])
        guard case .accept(let importRoute) = router.admit(methodName: "PUT", uri: "/v1/lists/ads", peer: root), importRoute.streamsBody
        else {
            Issue.record("a list import by root is not streamed")
            return
        }
        #expect(importRoute.maxBody == API.maxListBodyBytes)
        guard case .reject(let refusal) = router.admit(methodName: "PUT", uri: "/v1/lists/ads", peer: nobody) else {
            Issue.record("a reader got past the head")
            return
        }
        #expect(refusal.status == 403)
        guard case .accept(let profileRoute) = router.admit(methodName: "POST", uri: "/v1/profiles", peer: root) else { return }
        #expect(profileRoute.maxBody == API.maxBodyBytes && !profileRoute.streamsBody)

        // Over the limit: 413, nothing stored.
        let big = RequestBodyStream(limit: 64) { Array(repeating: UInt8(ascii: "a"), count: 40) + [10] }
        let tooLarge = await router.handle(APIRequest(methodName: "PUT", uri: "/v1/lists/big", peer: root, bodyStream: big))
        #expect(tooLarge.status == 413)

        // One import at a time: a second one while the first is still arriving is refused.
        let (pieces, feed) = AsyncStream.makeStream(of: [UInt8].self)
        // The import reading its body says so: a fixed wait was too short on a busy machine.
        let (reading, readingStarted) = AsyncStream.makeStream(of: Void.self)
        let slow = RequestBodyStream(limit: .max) {
            readingStarted.yield()
            for await piece in pieces { return piece }
            return nil
        }
        async let first = router.handle(APIRequest(methodName: "PUT", uri: "/v1/lists/slow", peer: root, bodyStream: slow))
        feed.yield(Array("a.example\n".utf8))
        for await _ in reading { break }
        let second = await router.handle(
            APIRequest(
                methodName: "PUT", uri: "/v1/lists/other", peer: root,
                bodyStream: .buffered(Array("b.example\n".utf8))))
        #expect(second.status == 409)
        feed.finish()
        #expect(await first.status == 200)
        #expect(try await test.api.lists().lists.map(\.name) == ["slow"])
    }

    @Test func resolverCachesAreFlushedAtEveryChangeAndFailuresOnlyReported() async throws {
        let recorder = RecordingCache()
        let failing = FailingCache()
        let test = try await daemon(caches: ResolverCacheFlusher(caches: [recorder, failing], logger: Logger(label: "test")))
        _ = try await test.api.createProfile(CreateProfileRequest(name: "p", domains: ["reddit.com"]))
        #expect(recorder.count == 0)
        let session = try await test.api.start(StartRequest(profile: "p", seconds: 600))
        #expect(recorder.count == 1, "the block starts although a cache could not be flushed")
        _ = try await test.api.extend(session.id, by: 60)
        #expect(recorder.count == 1, "an extension changes nothing that is blocked")
        _ = try await test.api.updateProfile("p", UpdateProfileRequest(addDomains: ["x.com"]))
        #expect(recorder.count == 2)
        _ = try await test.api.stop("p")
        #expect(recorder.count == 3)
        let status = try await test.api.status()
        #expect(status.resolverCaches?.flushed == ["recorder"])
        #expect(status.resolverCaches?.failures == ["broken: denied"])
        #expect(status.notices.contains { $0.contains("broken: denied") })
    }

    @Test func theHostsCapIsAppliedAndShownInStatus() async throws {
        try scratch.write("etc/hosts", "127.0.0.1 localhost\n")
        let hosts = HostsFileEnforcer(path: scratch.paths.hostsFile, maxNames: 100, logger: Logger(label: "test"))
        let test = try await daemon(enforcers: [hosts, fake])
        let domains = (0..<80).map { "d\($0).example" }
        _ = try await test.api.createProfile(CreateProfileRequest(name: "big", domains: domains))
        _ = try await test.api.start(StartRequest(profile: "big", seconds: 600))
        let status = try await test.api.status()
        #expect(status.notices.contains { $0.contains("first 100 of 160 names") }, "\(status.notices)")
        let listed = (scratch.read("etc/hosts") ?? "").split(separator: "\n").filter { !$0.hasPrefix("#") }
            .flatMap { $0.split(separator: " ").dropFirst() }.filter { !$0.hasSuffix(".") && $0 != "localhost" }
        #expect(Set(listed).count == 100)
        let capped = try await test.api.check("www.d9.example")
        #expect(capped.blocked, "the dns enforcer still blocks it")
        #expect(capped.enforcers.first { $0.name == "hosts" }?.detail.contains("hosts_max_names") == true)
    }
}

/// Counts flushes.
final class RecordingCache: ResolverCache {
    let name = "recorder"
    private let flushes = Mutex(0)
    var count: Int { flushes.withLock { $0 } }
    func flush() -> ResolverCacheOutcome {
        flushes.withLock { $0 += 1 }
        return .flushed
    }
}

/// A cache that cannot be flushed.
struct FailingCache: ResolverCache {
    let name = "broken"
    func flush() -> ResolverCacheOutcome { .failed("denied") }
}
