import Foundation
import LockProtocol
import TestSupport
import Testing

/// `lockctl profiles edit --icon/--color` and `add-category`/`remove-category` against the real
/// daemon: the profile file keeps them across a restart, bad values are refused in lockctl's
/// one error style naming the option, and nothing changes then.
@Suite struct ProfileLookCLITests {
    @Test func iconColourAndCategoriesThroughLockctl() throws {
        let root = try TestRoot()
        var daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("profiles", "create", "mine", "--domain", "a.example").status == 0)
        let edited = try daemon.lockctl("profiles", "edit", "mine", "--icon", "lock", "--color", "#34C759")
        #expect(edited.status == 0 && edited.stdout.hasPrefix("profile mine updated"), "\(edited)")
        #expect(try daemon.lockctl("profiles", "add-category", "mine", "news").status == 0)
        var mine = try daemon.decode(ProfileInfo.self, "profiles", "show", "mine")
        #expect(mine.icon == "lock" && mine.color == "#34C759" && mine.categories == ["news"], "\(mine)")
        #expect(mine.domainCount > 1, "the category's services are blocked too")

        let badColour = try daemon.lockctl("profiles", "edit", "mine", "--color", "#12")
        #expect(badColour.status != 0 && badColour.stderr.contains("--color") && badColour.stderr.contains("not a colour"), "\(badColour)")
        let unknown = try daemon.lockctl("profiles", "add-category", "mine", "nope")
        #expect(unknown.status != 0 && unknown.stderr.contains("unknown category"), "\(unknown)")
        let absent = try daemon.lockctl("profiles", "remove-category", "mine", "video")
        #expect(absent.status != 0 && absent.stderr.contains("video"), "\(absent)")

        _ = try daemon.stop()
        daemon = try DaemonProcess(root: root)
        mine = try daemon.decode(ProfileInfo.self, "profiles", "show", "mine")
        #expect(mine.icon == "lock" && mine.color == "#34C759" && mine.categories == ["news"], "kept across a restart: \(mine)")
        #expect(try daemon.lockctl("profiles", "remove-category", "mine", "news").status == 0)
        #expect(try daemon.lockctl("profiles", "edit", "mine", "--icon", "", "--color", "").status == 0)
        mine = try daemon.decode(ProfileInfo.self, "profiles", "show", "mine")
        #expect(mine.icon == nil && mine.color == nil && mine.categories.isEmpty, "\(mine)")
    }
}
