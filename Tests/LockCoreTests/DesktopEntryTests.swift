import LockCore
import Testing

@Suite struct DesktopEntryTests {
    @Test func readsAnApplicationEntry() throws {
        let entry = try DesktopEntry(
            parsing: """
                # comment before the group
                [Desktop Entry]
                Type=Application
                Name=Steam
                Name[de]=Steam (Deutsch)
                Name[pt_BR]=Steam BR
                Comment=Application for managing and playing games on Steam
                Exec=/usr/bin/steam %U
                TryExec = steam
                Categories=Network;FileTransfer;Game;
                NoDisplay=false
                Path=/opt/steam

                [Desktop Action Store]
                Name=Store
                Exec=steam steam://store
                """)
        #expect(entry.isApplication)
        #expect(entry.name == "Steam")
        #expect(entry.localizedNames == ["de": "Steam (Deutsch)", "pt_BR": "Steam BR"])
        #expect(entry.exec == "/usr/bin/steam %U")
        #expect(entry.tryExec == "steam")
        #expect(entry.categories == ["Network", "FileTransfer", "Game"])
        #expect(!entry.noDisplay && !entry.hidden)
        #expect(entry.workingDirectory == "/opt/steam")
        #expect(try entry.parsedExec()?.arguments == ["/usr/bin/steam"])
        #expect(entry.value("Exec", in: "Desktop Action Store") == "steam steam://store")
        #expect(entry.groups.map(\.name) == ["Desktop Entry", "Desktop Action Store"])
    }

    @Test func flagsAndVendorKeys() throws {
        let entry = try DesktopEntry(
            parsing: """
                [Desktop Entry]
                Type=Application
                Name=Telegram
                Exec=/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=telegram-desktop org.telegram.desktop -- @@u %u @@
                NoDisplay=true
                Hidden=true
                X-Flatpak=org.telegram.desktop
                X-SnapInstanceName=
                """)
        #expect(entry.noDisplay && entry.hidden)
        #expect(entry.flatpakID == "org.telegram.desktop")
        #expect(entry.snapInstanceName == nil)
        #expect(try entry.parsedExec()?.launch == .flatpak(appID: "org.telegram.desktop", command: "telegram-desktop"))
    }

    @Test func resolvesValueEscapesAndListEscapes() throws {
        let entry = try DesktopEntry(
            parsing: #"""
                [Desktop Entry]
                Name=Tab\there\sand\\back\nline
                Keywords=a\;b;c;;d\\;
                Odd=keeps \q unknown escapes and a trailing \
                """#)
        #expect(entry.name == "Tab\there and\\back\nline")
        #expect(entry.list("Keywords") == ["a;b", "c", "d\\"])
        #expect(entry.value("Odd") == #"keeps \q unknown escapes and a trailing \"#)
    }

    @Test func acceptsCRLFAndIndentedLines() throws {
        let entry = try DesktopEntry(parsing: "[Desktop Entry]\r\n  Name = Spaced  \r\nType=Application\r\n")
        #expect(entry.name == "Spaced  ")
        #expect(entry.isApplication)
    }

    @Test func booleansFollowTheSpecification() throws {
        let entry = try DesktopEntry(parsing: "[Desktop Entry]\nNoDisplay=True\nHidden=1\n")
        // Only lowercase `true` (and the old `1`) are true.
        #expect(!entry.noDisplay)
        #expect(entry.hidden)
    }

    // MARK: Hostile files

    @Test func refusesBinaryJunk() {
        var bytes = Array("[Desktop Entry]\nName=x\n".utf8)
        bytes += [0xFF, 0xFE, 0x41, 0x0A]
        #expect(throws: DesktopEntryError.invalidUTF8(line: 3)) { try DesktopEntry(bytes: bytes) }
        #expect(throws: DesktopEntryError.nulByte(line: 2)) {
            try DesktopEntry(bytes: Array("[Desktop Entry]\nName=a\u{0}b\n".utf8))
        }
        // An ELF header: refused on its first line, no trap.
        let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0] + (0..<2000).map { UInt8($0 % 256) }
        #expect(throws: DesktopEntryError.self) { try DesktopEntry(bytes: elf) }
    }

    @Test func refusesHugeLinesAndFiles() {
        let long = "[Desktop Entry]\nName=" + String(repeating: "a", count: DesktopEntry.maximumLineLength) + "\n"
        #expect(throws: DesktopEntryError.lineTooLong(line: 2, limit: DesktopEntry.maximumLineLength)) {
            try DesktopEntry(parsing: long)
        }
        let huge = [UInt8](repeating: UInt8(ascii: "\n"), count: DesktopEntry.maximumSize + 1)
        #expect(throws: DesktopEntryError.tooLarge(bytes: DesktopEntry.maximumSize + 1, limit: DesktopEntry.maximumSize)) {
            try DesktopEntry(bytes: huge)
        }
    }

    @Test func refusesStructuralErrors() {
        #expect(throws: DesktopEntryError.entryOutsideGroup(line: 1)) { try DesktopEntry(parsing: "Name=x\n[Desktop Entry]\n") }
        #expect(throws: DesktopEntryError.missingDesktopEntryGroup) { try DesktopEntry(parsing: "[Other]\nName=x\n") }
        #expect(throws: DesktopEntryError.missingDesktopEntryGroup) { try DesktopEntry(parsing: "") }
        #expect(throws: DesktopEntryError.malformedGroupHeader(line: 1)) { try DesktopEntry(parsing: "[Desktop Entry\nName=x\n") }
        #expect(throws: DesktopEntryError.malformedGroupHeader(line: 1)) { try DesktopEntry(parsing: "[]\n") }
        #expect(throws: DesktopEntryError.malformedGroupHeader(line: 1)) { try DesktopEntry(parsing: "[a[b]\n") }
        #expect(throws: DesktopEntryError.malformedLine(line: 2)) { try DesktopEntry(parsing: "[Desktop Entry]\njust words\n") }
        #expect(throws: DesktopEntryError.invalidKey(line: 2, key: "")) { try DesktopEntry(parsing: "[Desktop Entry]\n=value\n") }
        #expect(throws: DesktopEntryError.invalidKey(line: 2, key: "Na me")) { try DesktopEntry(parsing: "[Desktop Entry]\nNa me=x\n") }
        #expect(throws: DesktopEntryError.invalidKey(line: 2, key: "Name[]")) { try DesktopEntry(parsing: "[Desktop Entry]\nName[]=x\n") }
    }

    @Test func refusesDuplicates() {
        #expect(throws: DesktopEntryError.duplicateKey(line: 3, group: "Desktop Entry", key: "Exec")) {
            try DesktopEntry(parsing: "[Desktop Entry]\nExec=a\nExec=b\n")
        }
        #expect(throws: DesktopEntryError.duplicateGroup(line: 3, name: "Desktop Entry")) {
            try DesktopEntry(parsing: "[Desktop Entry]\nExec=a\n[Desktop Entry]\nExec=b\n")
        }
        // The same key in different groups, and localized variants, are fine.
        #expect(throws: Never.self) { try DesktopEntry(parsing: "[Desktop Entry]\nName=a\nName[de]=b\n[X]\nName=c\n") }
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(
            DesktopEntryError.duplicateKey(line: 3, group: "Desktop Entry", key: "Exec").description
                == "line 3: key Exec appears twice in [Desktop Entry]")
        #expect(DesktopEntryError.invalidUTF8(line: 7).description.contains("line 7"))
    }

    @Test func readsFlatpakMetadataWithoutADesktopEntryGroup() throws {
        let metadata = try DesktopEntry(
            bytes: Array(
                """
                [Application]
                name=com.valvesoftware.Steam
                runtime=org.freedesktop.Platform/x86_64/23.08
                command=steam-wrapper

                [Context]
                shared=network;ipc;
                """.utf8), requireMainGroup: false)
        #expect(metadata.value("command", in: "Application") == "steam-wrapper")
        #expect(metadata.list("shared", in: "Context") == ["network", "ipc"])
    }

    /// Random byte soup must give an entry or an error, never a trap.
    @Test func survivesRandomBytes() {
        var generator = SplitMix(seed: 12)
        let alphabet = Array("[]=#\\\"'% \t\nDesktop EntryNameExec%U;".utf8) + [0xC3, 0xA9, 0xFF, 0x00, 0x0D]
        for _ in 0..<2000 {
            let length = Int(generator.next() % 200)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            if let entry = try? DesktopEntry(bytes: bytes, requireMainGroup: false) {
                _ = try? entry.parsedExec()
                _ = entry.categories
                _ = entry.localizedNames
            }
        }
    }
}

/// A small deterministic generator, so that a failing input can be reproduced.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
