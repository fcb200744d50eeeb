import Foundation
import LockProtocol
import Testing

@testable import LockDaemon

/// `PATCH /v1/profiles/NAME` changes a custom profile's icon, colour and catalog categories, as
/// the UI's profile editor sends them; a bad colour or a category the profile does not hold is
/// refused by name and changes nothing, and taking a category away from a strict block is refused.
@Suite("Profile icon, colour and categories, in-process")
struct ProfileLookTests {
    let daemon: InProcessDaemon

    init() throws { daemon = try InProcessDaemon() }

    func send(_ router: Router, _ method: String, _ uri: String, _ body: String = "") async -> RouterReply {
        await daemon.send(router, method, uri, body)
    }

    func profile(_ router: Router) async throws -> ProfileInfo {
        try #require(await send(router, "GET", "/v1/profiles/mine").decode(ProfileInfo.self))
    }

    @Test func iconColourAndCategoriesAreChangedAndCleared() async throws {
        let router = try await daemon.router()
        let created = await send(
            router, "POST", "/v1/profiles", ##"{"name": "mine", "icon": "lock", "color": "#FF3B30", "categories": ["news"]}"##)
        #expect(created.status == 201, "\(created)")
        let changed = await send(
            router, "PATCH", "/v1/profiles/mine",
            ##"{"icon": "gamecontroller", "color": "#34C759", "addCategories": ["video"], "removeCategories": ["news"]}"##)
        #expect(changed.status == 200, "\(changed)")
        var now = try await profile(router)
        #expect(now.icon == "gamecontroller" && now.color == "#34C759" && now.categories == ["video"], "\(now)")
        #expect(now.domainCount > 0, "the video category's services are blocked")
        // The file keeps them: read again from disk.
        #expect(await send(router, "POST", "/v1/reload").status == 200)
        #expect(try await profile(router).icon == "gamecontroller")
        #expect(await send(router, "PATCH", "/v1/profiles/mine", ##"{"icon": "", "color": ""}"##).status == 200)
        now = try await profile(router)
        #expect(now.icon == nil && now.color == nil)
    }

    @Test(arguments: [
        (##"{"color": "red; x"}"##, "color"), (##"{"color": "#12345"}"##, "color"), (##"{"icon": "a\u001Bb"}"##, "control character"),
        (##"{"addCategories": ["nope"]}"##, "unknown category"), (##"{"removeCategories": ["video"]}"##, "remove-category"),
    ])
    func badValuesAreRefusedByName(body: String, named: String) async throws {
        let router = try await daemon.router()
        #expect(
            await send(router, "POST", "/v1/profiles", ##"{"name": "mine", "color": "#FF3B30", "categories": ["news"]}"##).status == 201)
        let answer = await send(router, "PATCH", "/v1/profiles/mine", body)
        #expect((400...409).contains(answer.status) && answer.message.contains(named), "\(answer)")
        let now = try await profile(router)
        #expect(now.color == "#FF3B30" && now.icon == nil && now.categories == ["news"])
    }

    @Test func aStrictBlockKeepsItsCategories() async throws {
        let router = try await daemon.router()
        #expect(await send(router, "POST", "/v1/profiles", ##"{"name": "mine", "categories": ["news"]}"##).status == 201)
        #expect(await send(router, "POST", "/v1/sessions", ##"{"profile": "mine", "seconds": 600, "strict": true}"##).status == 201)
        let answer = await send(router, "PATCH", "/v1/profiles/mine", ##"{"removeCategories": ["news"]}"##)
        #expect(answer.status == 409, "\(answer)")
        #expect(try await profile(router).categories == ["news"])
        // A look is not a loosening: the icon may change during the block.
        #expect(await send(router, "PATCH", "/v1/profiles/mine", ##"{"icon": "lock", "addCategories": ["video"]}"##).status == 200)
    }
}
