import Foundation
import Glibc
import LockCore
import LockPlatform
import Testing

/// A scratch tree standing in for the machine's application directories.
final class FakeInstallation {
    let root: String

    init() throws {
        var template = Array("/tmp/appcatalog-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw POSIXError(.EIO) }
        root = String(cString: template)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func write(_ relative: String, _ text: String, executable: Bool = false) throws {
        try write(relative, bytes: Array(text.utf8), executable: executable)
    }

    func write(_ relative: String, bytes: [UInt8], executable: Bool = false) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        if executable { chmod(path, 0o755) }
    }

    func link(_ relative: String, to target: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    var roots: AppCatalog.Roots {
        AppCatalog.Roots(
            dataDirectories: [path("usr/share"), path("flatpak/exports/share"), path("snapd/desktop")],
            flatpakInstallations: [path("flatpak")], snapDirectory: path("snap"),
            searchPath: [path("bin"), "/usr/bin", "/bin"], homes: [path("home/alice"), path("home/nobody-here")])
    }
}

@Suite struct AppCatalogTests {
    static let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 56)

    /// A small machine: a deb-style Steam (script behind a symlink on PATH), a game with spaces
    /// in its path, a Python game, a `sh -c` launcher, a flatpak, a snap, a user's own entry
    /// and several entries that must be skipped.
    func makeInstallation() throws -> FakeInstallation {
        let fake = try FakeInstallation()
        try fake.write("opt/steam/steam.sh", "#!/bin/sh\nexec /opt/steam/ubuntu12_32/steam \"$@\"\n", executable: true)
        try fake.link("bin/steam", to: fake.path("opt/steam/steam.sh"))
        try fake.write(
            "usr/share/applications/steam.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Steam
            Exec=steam %U
            Categories=Network;FileTransfer;Game;
            """)
        try fake.write("opt/My Game/run", bytes: Self.elf, executable: true)
        try fake.write(
            "usr/share/applications/games/mygame.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=My Game
            Exec="\(fake.path("opt/My Game/run"))" --fullscreen %f
            Categories=ActionGame;
            """)
        try fake.write("opt/pygame/game.py", "print('game')\n")
        try fake.write(
            "usr/share/applications/pygame.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Py Game
            Path=\(fake.path("opt/pygame"))
            Exec=python3 -u game.py
            Categories=Game;LogicGame;
            """)
        try fake.write("opt/chat/bin/chat", bytes: Self.elf, executable: true)
        try fake.write(
            "usr/share/applications/chat.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Chatter
            Exec=env GDK_BACKEND=x11 sh -c "nice -n 5 \(fake.path("opt/chat/bin/chat")) --start"
            Categories=Network;InstantMessaging;Chat;
            """)
        // Flatpak: exported entry, app files behind the `current/active` symbolic links.
        let deploy = "flatpak/app/org.telegram.desktop/x86_64/stable/0123abcd"
        try fake.write(deploy + "/files/bin/telegram-desktop", bytes: Self.elf, executable: true)
        try fake.write(deploy + "/files/bin/helper", bytes: Self.elf, executable: true)
        try fake.write(deploy + "/metadata", "[Application]\nname=org.telegram.desktop\ncommand=telegram-desktop\n")
        try fake.link("flatpak/app/org.telegram.desktop/x86_64/stable/active", to: "0123abcd")
        try fake.link("flatpak/app/org.telegram.desktop/current", to: "x86_64/stable")
        try fake.write(
            "flatpak/exports/share/applications/org.telegram.desktop.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Telegram Desktop
            Exec=/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=telegram-desktop --file-forwarding org.telegram.desktop -- @@u %u @@
            Categories=Chat;Network;InstantMessaging;Qt;
            X-Flatpak=org.telegram.desktop
            """)
        // Snap: /snap/bin/discord is a link to /usr/bin/snap, which must never be blocked.
        try fake.write("snap/discord/153/usr/bin/discord-wrapper", "#!/bin/sh\nexec $SNAP/usr/share/discord/Discord\n", executable: true)
        try fake.write(
            "snap/discord/153/meta/snap.yaml",
            """
            name: discord
            version: 0.0.30
            apps:
              discord:
                command: usr/bin/discord-wrapper
                desktop: usr/share/applications/discord.desktop
            plugs:
              command: not-an-app
            """)
        try fake.link("snap/discord/current", to: "153")
        try fake.write(
            "snapd/desktop/applications/discord_discord.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Discord
            X-SnapInstanceName=discord
            Exec=env BAMF_DESKTOP_FILE_HINT=/var/lib/snapd/desktop/applications/discord_discord.desktop /snap/bin/discord %U
            Categories=Network;InstantMessaging;
            """)
        // A user's own Steam entry: a second program for the same id.
        try fake.write("home/alice/bin/steam-beta", bytes: Self.elf, executable: true)
        try fake.write(
            "home/alice/.local/share/applications/steam.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Steam (beta)
            Exec=\(fake.path("home/alice/bin/steam-beta")) %U
            Categories=Game;
            """)
        // Skipped: hidden, not installed (TryExec), not an application, broken.
        try fake.write("usr/share/applications/hidden.desktop", "[Desktop Entry]\nType=Application\nName=Hidden\nExec=steam\nHidden=true\n")
        try fake.write(
            "usr/share/applications/absent.desktop", "[Desktop Entry]\nType=Application\nName=Absent\nTryExec=no-such-program\nExec=steam\n"
        )
        try fake.write("usr/share/applications/link.desktop", "[Desktop Entry]\nType=Link\nName=Web\nURL=https://example.org\n")
        try fake.write("usr/share/applications/junk.desktop", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10])
        try fake.write("usr/share/applications/quote.desktop", "[Desktop Entry]\nType=Application\nName=Q\nExec=\"unterminated\n")
        try fake.write("usr/share/applications/dup.desktop", "[Desktop Entry]\nType=Application\nName=A\nName=B\n")
        return fake
    }

    @Test func findsAppsAndTheirPrograms() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        #expect(catalog.apps.map(\.id) == ["chat", "discord_discord", "games-mygame", "org.telegram.desktop", "pygame", "steam"])

        let steam = try catalog.lookup("steam")
        #expect(steam.name == "Steam")
        #expect(steam.categories == ["Network", "FileTransfer", "Game"])
        #expect(steam.desktopFiles.count == 2)
        // The wrapper on PATH and its target are both kept; the script itself is what is blocked.
        let script = try #require(steam.executables.first)
        #expect(script.path == fake.path("bin/steam"))
        #expect(script.resolved == fake.path("opt/steam/steam.sh"))
        #expect(script.kind == .script(interpreter: "/bin/sh"))
        #expect(script.identity == FileIdentity(path: fake.path("opt/steam/steam.sh")))
        #expect(steam.executables.map(\.path).contains(fake.path("home/alice/bin/steam-beta")))
        #expect(try steam.blocked().executables.contains(fake.path("opt/steam/steam.sh")))

        #expect(try catalog.lookup("games-mygame").executables.map(\.path) == [fake.path("opt/My Game/run")])
        #expect(try catalog.lookup("games-mygame").executables.first?.kind == .elf)
    }

    @Test func looksPastInterpretersAndLaunchers() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        // python3 is never the app: the script is.
        let python = try catalog.lookup("pygame")
        #expect(python.executables.map(\.path) == [fake.path("opt/pygame/game.py")])
        // env, sh -c and nice are looked past.
        #expect(try catalog.lookup("chat").executables.map(\.path) == [fake.path("opt/chat/bin/chat")])
        for app in catalog.apps {
            for file in app.executables {
                #expect(ProgramNames.mayBeBlocked(file.resolved), "\(app.id) would block \(file.resolved)")
            }
        }
    }

    @Test func refusesToBlockAnAppWithNothingToBlock() throws {
        let fake = try makeInstallation()
        // `python3 -m module`: no script file to block, and python3 itself never is.
        try fake.write(
            "usr/share/applications/module.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Module App
            Exec=python3 -m some.module
            """)
        let app = try AppCatalog(roots: fake.roots).lookup("module")
        #expect(app.executables.isEmpty)
        #expect(throws: AppLookupError.noExecutables(id: "module")) { try app.blocked() }
    }

    @Test func findsFlatpaksAndSnaps() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        let telegram = try catalog.lookup("org.telegram.desktop")
        #expect(telegram.flatpakID == "org.telegram.desktop")
        let files = fake.path("flatpak/app/org.telegram.desktop/x86_64/stable/0123abcd/files/bin/")
        #expect(telegram.executables.map(\.resolved) == [files + "telegram-desktop", files + "helper"])

        let discord = try catalog.lookup("discord")
        #expect(discord.snapName == "discord")
        #expect(discord.id == "discord")
        #expect(discord.executables.map(\.resolved) == [fake.path("snap/discord/153/usr/bin/discord-wrapper")])
        #expect(!discord.executables.contains { $0.resolved.hasSuffix("/snap") })
    }

    @Test func findsInstalledFlatpaksWithoutEntries() throws {
        let fake = try makeInstallation()
        try fake.write("flatpak/app/com.example.Quiet/current/active/files/bin/quiet", bytes: AppCatalogTests.elf, executable: true)
        let app = try AppCatalog(roots: fake.roots).lookup("com.example.Quiet")
        #expect(app.flatpakID == "com.example.Quiet")
        #expect(app.executables.map(\.path) == [fake.path("flatpak/app/com.example.Quiet/current/active/files/bin/quiet")])
    }

    @Test func looksUpByDisplayNameAndPath() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        #expect(try catalog.lookup("telegram desktop").id == "org.telegram.desktop")
        #expect(try catalog.lookup("STEAM").id == "steam")
        // A path of a catalogued app gives the app; any other executable is an app of its own.
        #expect(try catalog.lookup(fake.path("opt/My Game/run")).id == "games-mygame")
        try fake.write("opt/loose/tool", bytes: AppCatalogTests.elf, executable: true)
        let loose = try catalog.lookup(fake.path("opt/loose/tool"))
        #expect(loose.id == fake.path("opt/loose/tool"))
        #expect(loose.name == "tool")
        try fake.write("opt/loose/data.txt", "x")
        #expect(throws: AppLookupError.notExecutable(path: fake.path("opt/loose/data.txt"))) {
            try catalog.lookup(fake.path("opt/loose/data.txt"))
        }
    }

    @Test func refusesUnknownNamesWithClosestMatches() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        #expect(throws: AppLookupError.unknown(name: "stema", suggestions: ["steam"])) { try catalog.lookup("stema") }
        #expect { try catalog.lookup("telegram") } throws: { error in
            guard case .unknown(_, let suggestions) = error as? AppLookupError else { return false }
            return suggestions == ["org.telegram.desktop"]
        }
        #expect { try catalog.lookup("xyzzy-nothing") } throws: { error in
            (error as? AppLookupError)?.description.hasPrefix("unknown app \"xyzzy-nothing\"") ?? false
        }
    }

    @Test func reportsBrokenEntriesAndSkipsTheRest() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        #expect(catalog.problems.count == 3)
        #expect(catalog.problems.contains { $0.hasSuffix("junk.desktop: line 1: contains a NUL byte (not a text file)") })
        #expect(catalog.problems.contains { $0.contains("quote.desktop: Exec") && $0.contains("unterminated quote") })
        #expect(catalog.problems.contains { $0.contains("dup.desktop: line 4: key Name appears twice") })
        #expect(!catalog.apps.contains { ["hidden", "absent", "link"].contains($0.id) })
    }

    @Test func matchesCategories() throws {
        let fake = try makeInstallation()
        let catalog = AppCatalog(roots: fake.roots)
        #expect(catalog.apps(in: try AppCategory(parsing: "game")).map(\.id) == ["games-mygame", "pygame", "steam"])
        #expect(catalog.apps(in: try AppCategory(parsing: "Chat")).map(\.id) == ["chat", "org.telegram.desktop"])
        #expect(
            catalog.apps(in: try AppCategory(parsing: "network")).map(\.id)
                == ["chat", "discord_discord", "org.telegram.desktop", "steam"])
    }

    @Test func readsRealUsersFromPasswd() {
        let passwd = """
            root:x:0:0:root:/root:/bin/bash
            nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
            alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash
            bob:x:1001:1001::/home/bob:/bin/zsh
            broken line
            svc:x:999:999::/var/lib/svc:/usr/sbin/nologin
            """
        #expect(SystemUsers.homes(passwdText: passwd) == ["/home/alice", "/home/bob"])
    }

    @Test func scansTheRealMachineWithoutTrouble() {
        // Whatever is installed here: the scan finishes and never names an interpreter.
        let catalog = AppCatalog()
        for app in catalog.apps {
            for file in app.executables { #expect(!ProgramNames.isInterpreter(file.resolved), "\(app.id): \(file.resolved)") }
        }
    }
}
