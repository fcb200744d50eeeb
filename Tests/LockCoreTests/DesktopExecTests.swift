import LockCore
import Testing

@Suite struct DesktopExecTests {
    private func split(_ exec: String) throws -> [String] { try DesktopExec(parsing: exec).arguments }

    @Test func removesFieldCodes() throws {
        #expect(try split("steam %U") == ["steam"])
        #expect(try split("app %f %F %u %U %i %c %k") == ["app"])
        #expect(try split("app %d %D %n %N %v %m --x") == ["app", "--x"])
        #expect(try split("app --file=%f --open") == ["app", "--file=", "--open"])
        #expect(try split("app %U%F") == ["app"])
        #expect(try split("app 100%% done") == ["app", "100%", "done"])
        #expect(try split("app %%") == ["app", "%"])
    }

    @Test func appliesQuotingRules() throws {
        #expect(try split(#""/opt/My Game/run" --level "two words""#) == ["/opt/My Game/run", "--level", "two words"])
        #expect(try split(#"sh -c "echo \"hi\" \$HOME \`x\` \\""#) == ["sh", "-c", #"echo "hi" $HOME `x` \"#])
        #expect(try split(#"app "a\nb""#) == ["app", #"a\nb"#])
        #expect(try split(#"app """#) == ["app", ""])
        #expect(try split("app  \t many   spaces ") == ["app", "many", "spaces"])
        // Not in the specification, but common in real files and accepted by launchers.
        #expect(try split("sh -c 'exec game --x'") == ["sh", "-c", "exec game --x"])
        #expect(try split(#"/opt/My\ Game/run"#) == ["/opt/My Game/run"])
    }

    @Test func generalEscapesComeFirst() throws {
        // In the file `\\"` is the general escape for `\` followed by `"`: Exec sees `\"`.
        let entry = try DesktopEntry(
            parsing: #"""
                [Desktop Entry]
                Exec=sh -c "echo \\"quoted\\"" %u
                """#)
        #expect(try entry.parsedExec()?.arguments == ["sh", "-c", #"echo "quoted""#])
    }

    @Test func refusesWhatCannotBeSplit() {
        #expect(throws: DesktopEntryError.unterminatedQuote(exec: #"app "open"#)) { try split(#"app "open"#) }
        #expect(throws: DesktopEntryError.unterminatedQuote(exec: "app 'open")) { try split("app 'open") }
        #expect(throws: DesktopEntryError.unknownFieldCode(exec: "app %z", code: "%z")) { try split("app %z") }
        #expect(throws: DesktopEntryError.unknownFieldCode(exec: "app %", code: "%")) { try split("app %") }
        #expect(throws: DesktopEntryError.emptyExec) { try split("") }
        #expect(throws: DesktopEntryError.emptyExec) { try split("   %U  ") }
        #expect(throws: DesktopEntryError.emptyExec) { try split(#""" x"#) }
    }

    @Test func recognisesFlatpakLaunches() throws {
        let steam = try DesktopExec(
            parsing:
                "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=/app/bin/steam-wrapper --file-forwarding com.valvesoftware.Steam @@u %U @@"
        )
        #expect(steam.launch == .flatpak(appID: "com.valvesoftware.Steam", command: "/app/bin/steam-wrapper"))
        #expect(
            try DesktopExec(parsing: "flatpak run --command steam com.valvesoftware.Steam").launch
                == .flatpak(appID: "com.valvesoftware.Steam", command: "steam"))
        #expect(
            try DesktopExec(parsing: "flatpak run org.telegram.desktop -- %u").launch
                == .flatpak(appID: "org.telegram.desktop", command: nil))
        // Not a valid application id: a plain program (flatpak itself is never treated as the app).
        #expect(try DesktopExec(parsing: "flatpak run notanid").launch == .program(arguments: ["flatpak", "run", "notanid"]))
    }

    @Test func recognisesSnapsAndLooksPastEnv() throws {
        #expect(
            try DesktopExec(
                parsing: "env BAMF_DESKTOP_FILE_HINT=/var/lib/snapd/desktop/applications/firefox_firefox.desktop /snap/bin/firefox %u"
            ).launch
                == .snap(name: "firefox", app: nil))
        #expect(try DesktopExec(parsing: "/snap/bin/foo.bar").launch == .snap(name: "foo", app: "bar"))
        #expect(try DesktopExec(parsing: "snap run discord").launch == .snap(name: "discord", app: nil))
        #expect(
            try DesktopExec(parsing: "env -u DISPLAY LANG=C /opt/game/run --fast").launch
                == .program(arguments: ["/opt/game/run", "--fast"]))
    }

    @Test func flatpakIDs() {
        #expect(FlatpakID.isValid("org.telegram.desktop"))
        #expect(FlatpakID.isValid("com.valvesoftware.Steam"))
        #expect(FlatpakID.isValid("io.github.some_one.App-2"))
        #expect(!FlatpakID.isValid("steam"))
        #expect(!FlatpakID.isValid("org..x"))
        #expect(!FlatpakID.isValid("org.1x.y"))
        #expect(!FlatpakID.isValid("org.x/y.z"))
    }
}
