import Foundation
import Glibc
import LockCore
import LockPlatform
import Testing

@Suite("A profile's apps and app categories resolved through the catalog")
struct AppResolutionTests {
    func installation() throws -> FakeInstallation {
        let fake = try FakeInstallation()
        try fake.write("opt/game/game", bytes: AppCatalogTests.elf, executable: true)
        try fake.write("opt/chess/chess", bytes: AppCatalogTests.elf, executable: true)
        try fake.write("opt/chat/chat", bytes: AppCatalogTests.elf, executable: true)
        try fake.write("opt/helper/handler", bytes: AppCatalogTests.elf, executable: true)
        try fake.write(
            "usr/share/applications/fakegame.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Fake Game
            Exec=\(fake.path("opt/game/game")) %U
            Categories=ActionGame;
            """)
        try fake.write(
            "usr/share/applications/chess.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Chess
            Exec=\(fake.path("opt/chess/chess"))
            Categories=Game;BoardGame;
            """)
        try fake.write(
            "usr/share/applications/chat.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Chat
            Exec=\(fake.path("opt/chat/chat"))
            Categories=Network;Chat;
            """)
        try fake.write(
            "usr/share/applications/game-handler.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Game URL handler
            NoDisplay=true
            Exec=\(fake.path("opt/helper/handler")) %u
            Categories=Game;
            """)
        try fake.write(
            "usr/share/applications/gone.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Gone
            Exec=\(fake.path("opt/gone/gone"))
            Categories=Game;
            """)
        return fake
    }

    @Test func namesAndCategoriesBecomeBlockedAppsAndTheRestIsMissing() throws {
        let fake = try installation()
        let catalog = AppCatalog(roots: fake.roots)
        let resolution = catalog.resolve(
            apps: ["chat", "steam-not-here", "com.example.Nothing", fake.path("opt/game/game")],
            categories: [try AppCategory(parsing: "game")], running: .freeze)
        // ActionGame counts as Game; the NoDisplay handler and the entry without a program do not.
        #expect(resolution.apps.map(\.id) == ["chat", "chess", "fakegame"])
        #expect(resolution.apps.allSatisfy { $0.running == .freeze && !$0.strict })
        #expect(resolution.apps.first { $0.id == "fakegame" }?.name == "Fake Game")
        #expect(resolution.apps.first { $0.id == "fakegame" }?.executables.contains(fake.path("opt/game/game")) == true)
        #expect(resolution.missing == ["steam-not-here", "com.example.Nothing"])
    }

    @Test func aHiddenEntryNamedExplicitlyIsBlocked() throws {
        let fake = try installation()
        let resolution = AppCatalog(roots: fake.roots).resolve(apps: ["game-handler"], categories: [], running: .terminate)
        #expect(resolution.apps.map(\.id) == ["game-handler"])
    }

    @Test func lookupsSuggestTheClosestNames() throws {
        let fake = try installation()
        let catalog = AppCatalog(roots: fake.roots)
        #expect(throws: AppLookupError.unknown(name: "fakegam", suggestions: ["fakegame"])) { try catalog.lookup("fakegam") }
        // A display name typed in another case finds the id.
        #expect(try catalog.lookup("fake game").id == "fakegame")
        #expect(catalog.apps(in: try AppCategory(parsing: "chat")).map(\.id) == ["chat"])
    }
}
