import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockPlatform
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

@Suite("Profiles that hold apps: files, configuration, the catalog, sessions and the API")
struct AppProfileTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    /// An app installed under the scratch root, where the daemon's catalog looks
    /// (`ROOT/usr/share/applications`), with its program in `ROOT/opt/ID/ID`.
    func install(_ id: String, name: String, categories: String, noDisplay: Bool = false) throws {
        let program = scratch.path + "/opt/\(id)/\(id)"
        try scratch.write("opt/\(id)/\(id)", "#!/bin/sh\necho \(id)\n")
        chmod(program, 0o755)
        try scratch.write(
            "usr/share/applications/\(id).desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=\(name)
            Exec=\(program) %U
            Categories=\(categories)
            \(noDisplay ? "NoDisplay=true" : "")
            """)
    }

    func program(_ id: String) -> String { scratch.path + "/opt/\(id)/\(id)" }

    func daemon() async throws -> TestDaemon {
        try install("fakegame", name: "Fake Game", categories: "Game;ActionGame;")
        try install("chatter", name: "Chatter", categories: "Network;Chat;")
        return try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake])
    }

    // MARK: - Files

    @Test func profileFilesHoldAppsCategoriesAndTheRunningPolicy() throws {
        try scratch.write(
            "etc/simplylock/profiles.d/play.toml",
            """
            name = "play"
            apps = ["steam", "org.telegram.desktop", "/opt/game/game"]
            app_categories = ["game", "CHAT", "X-Custom"]
            running = "freeze"
            """)
        var profiles = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(profiles.reload().isEmpty)
        let profile = try #require(profiles.profile("play"))
        #expect(profile.apps == ["steam", "org.telegram.desktop", "/opt/game/game"])
        #expect(profile.appCategories.map(\.name) == ["Game", "Chat", "X-Custom"])
        #expect(profile.running == .freeze)
        // Written back and read again: the same profile, categories in their registered spelling.
        try profiles.delete("play")
        var copy = profile
        copy.name = "copy"
        try profiles.create(copy)
        let text = try #require(scratch.read("etc/simplylock/profiles.d/copy.toml"))
        #expect(text.contains("\"Game\"") && text.contains("running = \"freeze\""), "\(text)")
        var fresh = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(fresh.reload().isEmpty)
        #expect(fresh.profile("copy") == copy)
    }

    @Test func badAppFieldsAreReportedWithFileLineAndField() throws {
        try scratch.write(
            "etc/simplylock/profiles.d/cats.toml",
            """
            name = "cats"
            app_categories = [
                "Game",
                "Gmae",
            ]
            """)
        try scratch.write("etc/simplylock/profiles.d/names.toml", "name = \"names\"\napps = [\n  \"steam\",\n  \"two words\",\n]\n")
        try scratch.write("etc/simplylock/profiles.d/relative.toml", "name = \"relative\"\napps = [\"bin/game\"]\n")
        try scratch.write("etc/simplylock/profiles.d/policy.toml", "name = \"policy\"\n\nrunning = \"pause\"\n")
        try scratch.write("etc/simplylock/profiles.d/typed.toml", "name = \"typed\"\napps = \"steam\"\n")
        var profiles = ProfileStore(paths: scratch.paths, names: testNames)
        let text = profiles.reload().map(\.description).joined(separator: "\n")
        #expect(text.contains("profiles.d/cats.toml:4: app_categories: unknown app category \"Gmae\"; did you mean Game?"), "\(text)")
        #expect(text.contains("profiles.d/names.toml:4: apps: \"two words\" contains spaces"), "\(text)")
        #expect(text.contains("profiles.d/relative.toml:2: apps: \"bin/game\" is a relative path"), "\(text)")
        #expect(
            text.contains("profiles.d/policy.toml:3: running: \"pause\" is not a policy for running apps (terminate or freeze)"), "\(text)")
        #expect(text.contains("profiles.d/typed.toml:2: apps: must be an array of strings"), "\(text)")
        #expect(["cats", "names", "relative", "policy", "typed"].allSatisfy { profiles.profile($0) == nil })
    }

    @Test func shippedProfilesNameApps() throws {
        var profiles = ProfileStore(paths: scratch.paths, names: testNames)
        #expect(profiles.reload().isEmpty)
        let gaming = try #require(profiles.profile("gaming"))
        #expect(gaming.appCategories.map(\.name) == ["Game"])
        #expect(
            gaming.apps.contains("steam") && gaming.apps.contains("com.valvesoftware.Steam") && gaming.apps.contains("net.lutris.Lutris"))
        let social = try #require(profiles.profile("social"))
        for app in ["discord", "com.discordapp.Discord", "org.telegram.desktop", "slack", "org.signal.Signal", "im.riot.Riot"] {
            #expect(social.apps.contains(app), "\(app)")
        }
        #expect(try #require(profiles.profile("video")).apps.contains("io.freetubeapp.FreeTube"))
        let deepWork = try #require(profiles.profile("deep-work"))
        #expect(Set(gaming.apps + social.apps).isSubset(of: deepWork.apps))
    }

    @Test func theAppsSectionOfTheConfiguration() throws {
        try scratch.write(
            "c.toml",
            """
            [apps]
            data_dirs = ["/srv/apps/share"]
            user_writable = ["/home", "/scratch"]
            mechanism = "proc-connector"
            terminate_grace = "2s"
            """)
        let configuration = try DaemonConfiguration.load(scratch.path + "/c.toml").get()
        #expect(configuration.apps.dataDirectories == ["/srv/apps/share"])
        #expect(configuration.apps.userWritable == ["/home", "/scratch"])
        #expect(configuration.apps.mechanism == .procConnector)
        #expect(configuration.apps.terminateGrace == .seconds(2))
        #expect(DaemonConfiguration.knownEnforcers.contains("apps"))
        try scratch.write(
            "c.toml", "enforcers = [\"hosts\", \"apps\"]\n\n[apps]\ndata_dirs = [\"relative/share\"]\nmechanism = \"ptrace\"\ncolour = 1\n")
        let loaded = DaemonConfiguration.load(scratch.path + "/c.toml")
        let text = loaded.problems.map(\.description).joined(separator: "\n")
        #expect(loaded.configuration.enforcers == ["hosts", "apps"])
        #expect(text.contains("c.toml:4: apps.data_dirs: \"relative/share\" is not an absolute path"), "\(text)")
        #expect(text.contains("c.toml:5: apps.mechanism: \"ptrace\" is not a mechanism"), "\(text)")
        #expect(text.contains("c.toml:6: apps.colour: unknown field"), "\(text)")
        #expect(loaded.configuration.apps.mechanism == .automatic)
    }

    // MARK: - Through the API

    @Test func unknownAppsAreRefusedWithTheClosestMatches() async throws {
        let daemon = try await daemon()
        do {
            _ = try await daemon.api.createProfile(CreateProfileRequest(name: "play", apps: ["fakegme"]))
            Issue.record("an unknown app was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(
                error.message.contains("unknown app \"fakegme\"") && error.message.contains("did you mean fakegame?"), "\(error.message)")
        }
        await #expect(throws: APIError.self) {
            try await daemon.api.createProfile(CreateProfileRequest(name: "play", appCategories: ["Gmae"]))
        }
        await #expect(throws: APIError.self) {
            try await daemon.api.createProfile(CreateProfileRequest(name: "play", apps: ["fakegame"], running: "pause"))
        }
        #expect(scratch.read("etc/simplylock/profiles.d/play.toml") == nil, "a refused request wrote a file")
        let created = try await daemon.api.createProfile(CreateProfileRequest(name: "play", apps: ["Fake Game"], appCategories: ["chat"]))
        // The display name is kept as the id it stands for.
        #expect(created.apps == ["fakegame"])
        #expect(created.appCategories == ["Chat"])
        #expect(created.expandedApps == ["chatter", "fakegame"])
        #expect(created.appCount == 2)
    }

    @Test func aSessionSnapshotsItsAppsAndTheEnforcersGetThem() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.createProfile(CreateProfileRequest(name: "play", apps: ["fakegame"]))
        let session = try await daemon.api.start(StartRequest(profile: "play", seconds: 600))
        #expect(session.apps == ["fakegame"])
        let desired = try #require(await fake.current)
        #expect(desired.apps.map(\.id) == ["fakegame"])
        #expect(desired.apps[0].name == "Fake Game")
        #expect(desired.apps[0].executables == [program("fakegame")])
        #expect(!desired.apps[0].strict && desired.apps[0].running == .terminate)
        // The app disappears from disk: the running session keeps blocking what it took.
        try FileManager.default.removeItem(atPath: scratch.path + "/usr/share/applications/fakegame.desktop")
        clock.advance(10)
        #expect(await daemon.sessions.active[0].rules.apps.map(\.id) == ["fakegame"])
        // And it is still found by check, by the id it was blocked as.
        let check = try await daemon.api.call(Endpoints.check, query: "app=fakegame")
        #expect(check.blocked && check.matches.map(\.profile) == ["play"])
    }

    @Test func strictSessionsOnlyGainAppsOrdinaryOnesFollowTheProfile() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.createProfile(CreateProfileRequest(name: "soft", apps: ["fakegame"]))
        _ = try await daemon.api.createProfile(CreateProfileRequest(name: "hard", apps: ["fakegame"], running: "freeze"))
        _ = try await daemon.api.start(StartRequest(profile: "soft", seconds: 600))
        _ = try await daemon.api.start(StartRequest(profile: "hard", seconds: 600, strict: true))
        _ = try await daemon.api.updateProfile("soft", UpdateProfileRequest(addApps: ["chatter"], removeApps: ["fakegame"]))
        // While the strict block runs, an edit taking an app from it is refused and changes
        // nothing; one that only adds applies at once.
        do {
            _ = try await daemon.api.updateProfile("hard", UpdateProfileRequest(addApps: ["chatter"], removeApps: ["fakegame"]))
            Issue.record("an edit unblocking an app during a strict block was accepted")
        } catch {
            #expect(error.message.contains("unblocks app fakegame"), "\(error.message)")
        }
        #expect(await daemon.sessions.active.first { $0.profile == "hard" }?.rules.apps.map(\.id) == ["fakegame"])
        _ = try await daemon.api.updateProfile("hard", UpdateProfileRequest(addApps: ["chatter"]))
        let active = await daemon.sessions.active
        #expect(active.first { $0.profile == "soft" }?.rules.apps.map(\.id) == ["chatter"])
        #expect(active.first { $0.profile == "hard" }?.rules.apps.map(\.id) == ["chatter", "fakegame"])
        let desired = try #require(await fake.current)
        #expect(desired.apps.map(\.id) == ["chatter", "fakegame"])
        // The strict session blocks both: matched by content; terminate (soft) wins over freeze.
        #expect(desired.apps.allSatisfy { $0.strict })
        #expect(desired.apps.first { $0.id == "chatter" }?.running == .terminate)
        #expect(desired.apps.first { $0.id == "fakegame" }?.running == .freeze)
        // A category added to a running session brings the apps installed since.
        try install("another", name: "Another Game", categories: "Game;")
        _ = try await daemon.api.updateProfile("soft", UpdateProfileRequest(addAppCategories: ["game"]))
        #expect(await daemon.sessions.active.first { $0.profile == "soft" }?.rules.apps.map(\.id) == ["another", "chatter", "fakegame"])
        // Removing what the profile does not hold names the field.
        do {
            _ = try await daemon.api.updateProfile("soft", UpdateProfileRequest(removeApps: ["steam"]))
            Issue.record("removing an app the profile does not hold was accepted")
        } catch {
            #expect(error.code == .conflict && error.message.contains("remove-app: steam"), "\(error.message)")
        }
    }

    @Test func anAppInstalledAMomentAgoCanBeAddedAtOnce() async throws {
        let daemon = try await daemon()
        _ = try await daemon.api.createProfile(CreateProfileRequest(name: "play", apps: ["fakegame"]))
        try install("brandnew", name: "Brand New", categories: "Game;")
        let updated = try await daemon.api.updateProfile("play", UpdateProfileRequest(addApps: ["brandnew"]))
        #expect(updated.expandedApps == ["brandnew", "fakegame"])
    }

    @Test func systemProfilesSkipWhatIsNotInstalledAndSayWhat() async throws {
        let daemon = try await daemon()
        let gaming = try await daemon.api.call(Endpoints.profile, ["gaming"])
        #expect(gaming.expandedApps == ["fakegame"])
        #expect(gaming.missingApps?.contains("steam") == true)
        let session = try await daemon.api.start(StartRequest(profile: "gaming", seconds: 600))
        #expect(session.apps == ["fakegame"])
        #expect(session.missingApps.contains("com.valvesoftware.Steam"))
        let list = try await daemon.api.call(Endpoints.profiles)
        #expect(list.profiles.first { $0.name == "gaming" }?.appCount == 1)
        #expect(list.profiles.first { $0.name == "news" }?.appCount == 0)
    }

    @Test func appsListAndCheckAnswerThroughTheRouteTable() async throws {
        let daemon = try await daemon()
        try install("hidden", name: "Hidden Helper", categories: "Game;", noDisplay: true)
        let all = try await daemon.api.call(Endpoints.apps)
        #expect(all.apps.map(\.id) == ["chatter", "fakegame", "hidden"])
        let game = try #require(all.apps.first { $0.id == "fakegame" })
        #expect(game.name == "Fake Game" && game.categories == ["Game", "ActionGame"] && game.executables == [program("fakegame")])
        #expect(all.apps.first { $0.id == "hidden" }?.hidden == true)
        let games = try await daemon.api.call(Endpoints.apps, query: "category=game")
        #expect(games.apps.map(\.id) == ["fakegame", "hidden"])
        do {
            _ = try await daemon.api.call(Endpoints.apps, query: "category=gmae")
            Issue.record("an unknown category was accepted")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("did you mean Game?"), "\(error.message)")
        }

        var check = try await daemon.api.call(Endpoints.check, query: "app=fakegame")
        #expect(!check.blocked && check.name == "fakegame" && check.displayName == "Fake Game")
        _ = try await daemon.api.createProfile(CreateProfileRequest(name: "play", appCategories: ["Game"]))
        let session = try await daemon.api.start(StartRequest(profile: "play", seconds: 600))
        check = try await daemon.api.call(Endpoints.check, query: "app=" + PathTemplate.escape("Fake Game"))
        #expect(check.blocked && check.matches.map(\.session) == [session.id] && check.matches[0].rule == "fakegame")
        // By the path of its program, too.
        check = try await daemon.api.call(Endpoints.check, query: "app=" + PathTemplate.escape(program("fakegame")))
        #expect(check.blocked && check.name == "fakegame")
        #expect(try await daemon.api.call(Endpoints.check, query: "app=chatter").blocked == false)
        do {
            _ = try await daemon.api.call(Endpoints.check, query: "app=chattr")
            Issue.record("an unknown app was answered")
        } catch {
            #expect(error.code == .notFound && error.message.contains("did you mean chatter?"), "\(error.message)")
        }
    }
}
