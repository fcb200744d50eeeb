import Foundation
import LockCore
import Testing

@Suite struct AppCategoryTests {
    @Test(arguments: [
        ("game", "Game"), ("GAME", "Game"), ("Game", "Game"), ("chat", "Chat"), (" webbrowser ", "WebBrowser"),
        ("3dgraphics", "3DGraphics"), ("audiovideo", "AudioVideo"), ("x-steam", "X-steam"), ("X-Custom_1", "X-Custom_1"),
    ])
    func normalisesUserInput(input: String, expected: String) throws {
        #expect(try AppCategory(parsing: input).name == expected)
    }

    @Test func refusesUnknownCategoriesWithSuggestions() {
        #expect { try AppCategory(parsing: "Gmae") } throws: { error in
            let message = (error as? FieldError)?.description ?? ""
            return message.contains("unknown app category \"Gmae\"") && message.contains("did you mean Game")
        }
        #expect(throws: FieldError.self) { try AppCategory(parsing: "") }
        #expect(throws: FieldError.self) { try AppCategory(parsing: "X-") }
        #expect(throws: FieldError.self) { try AppCategory(parsing: "X-with space") }
    }

    @Test func matchesCaseSensitivelyLikeTheFiles() throws {
        let game = try AppCategory(parsing: "game")
        #expect(game.matches(["Network", "Game"]))
        #expect(!game.matches(["game"]))
        #expect(!game.matches(["Network", "FileTransfer"]))
    }

    @Test func mainCategoryMatchesItsAdditionalCategories() throws {
        let game = try AppCategory(parsing: "Game")
        #expect(game.matches(["ActionGame"]))
        #expect(game.matches(["Shooter"]))
        let network = try AppCategory(parsing: "Network")
        #expect(network.matches(["Chat"]))
        #expect(network.matches(["InstantMessaging"]))
        // Ambiguous relations (Player: Audio or Video) do not imply either.
        #expect(!(try AppCategory(parsing: "Video")).matches(["Player"]))
        // The other direction never holds: Chat is not every Network app.
        #expect(!(try AppCategory(parsing: "Chat")).matches(["Network", "WebBrowser"]))
    }

    @Test func registeredNamesAreUniqueIgnoringCase() {
        let lowered = AppCategory.registered.map { $0.lowercased() }
        #expect(Set(lowered).count == lowered.count)
        for (_, related) in AppCategory.additional {
            for name in related { #expect(AppCategory.registered.contains(name)) }
        }
    }

    @Test func codesAsItsName() throws {
        let data = try JSONEncoder().encode([try AppCategory(parsing: "chat")])
        #expect(String(decoding: data, as: UTF8.self) == #"["Chat"]"#)
        #expect(try JSONDecoder().decode([AppCategory].self, from: Data(#"["game"]"#.utf8)) == [try AppCategory(parsing: "Game")])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([AppCategory].self, from: Data(#"["nope"]"#.utf8)) }
    }
}

@Suite struct ClosestMatchesTests {
    @Test func findsNearNames() {
        let ids = ["steam", "org.telegram.desktop", "firefox", "discord", "stellarium", "team"]
        #expect(ClosestMatches.find("stean", among: ids) == ["steam", "team"])
        #expect(ClosestMatches.find("stema", among: ids) == ["steam"])
        #expect(ClosestMatches.find("telegram", among: ids) == ["org.telegram.desktop"])
        #expect(ClosestMatches.find("Discrod", among: ids) == ["discord"])
        #expect(ClosestMatches.find("zzzzzz", among: ids).isEmpty)
        #expect(ClosestMatches.find("", among: ids).isEmpty)
        #expect(ClosestMatches.find("a", among: ["a", "b", "c", "d"], limit: 2) == ["a", "b"])
    }
}

@Suite struct ProgramNamesTests {
    @Test func recognisesInterpretersWhateverTheirVersion() {
        for path in [
            "/usr/bin/python3.11", "python3", "/usr/bin/perl5.36.0", "lua5.4", "/bin/bash", "dash", "node",
            "/lib64/ld-linux-x86-64.so.2", "/usr/bin/Rscript", "wine64",
        ] {
            #expect(ProgramNames.isInterpreter(path), "\(path)")
        }
        for path in ["/usr/bin/cat", "/usr/games/steam", "/usr/bin/gcc", "make"] {
            #expect(!ProgramNames.isInterpreter(path), "\(path)")
        }
    }

    @Test func neverBlocksLaunchersButMayBlockTerminals() {
        #expect(!ProgramNames.mayBeBlocked("/usr/bin/flatpak"))
        #expect(!ProgramNames.mayBeBlocked("/usr/bin/env"))
        #expect(!ProgramNames.mayBeBlocked("/usr/bin/python3"))
        #expect(ProgramNames.isLauncher("/usr/bin/xterm"))
        #expect(ProgramNames.mayBeBlocked("/usr/bin/xterm"))
        #expect(ProgramNames.mayBeBlocked("/usr/games/steam"))
    }
}
