import Foundation
import Glibc
import TestSupport
import Testing

/// Chromium from Debian (headless), its WebDriver and the suite's Selenium and axe-core.
let uiBrowserMissing = TestTools.missing {
    if access("/usr/bin/chromium", X_OK) != 0 { return "/usr/bin/chromium is missing (scripts/setup.sh installs chromium)" }
    if access("/usr/bin/chromedriver", X_OK) != 0 { return "/usr/bin/chromedriver is missing (scripts/setup.sh installs chromium-driver)" }
    guard let python = TestTools.python else { return "the suite's Python tools are missing (run scripts/setup.sh)" }
    let probe = try? ProcessRunner.run(python, ["-c", "import selenium, axe_selenium_python"])
    return probe?.status == 0 ? nil : "selenium and axe-selenium-python are not in .build/test-venv (run scripts/setup.sh)"
}

@Suite("lockctl ui in a real browser")
struct UIBrowserTests {
    static let artefacts = TestTools.repository + "/.build/artefacts/ui"

    @Test(
        "Home, Profiles, Insights, Timer and Settings against the real daemon, by mouse and by keyboard; axe-core; screenshots",
        .enabled(if: uiBrowserMissing == nil, "\(uiBrowserMissing ?? "")"))
    func browser() throws {
        let root = try TestRoot()
        // An installed app for the picker (the catalog reads ROOT/usr/share/applications).
        try root.write("opt/confgame/confgame", "#!/bin/sh\necho game\n")
        chmod(root.path + "/opt/confgame/confgame", 0o755)
        try root.write(
            "usr/share/applications/confgame.desktop",
            "[Desktop Entry]\nType=Application\nName=Conformance Game\nExec=\(root.path)/opt/confgame/confgame\nIcon=confgame\nCategories=Game;\n"
        )
        // Its icon in the hicolor theme beside the entry, for the picker.
        try root.write(
            "usr/share/icons/hicolor/scalable/apps/confgame.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 24 24\"><rect width=\"24\" height=\"24\" rx=\"5\" fill=\"#34C759\"/></svg>\n"
        )
        let daemon = try DaemonProcess(root: root)
        let schedule = try daemon.lockctl(
            "schedules", "add", "mornings", "--profile", "news", "--days", "mon-fri", "--from", "08:00", "--to", "12:00")
        try #require(schedule.status == 0, "\(schedule)")
        try daemon.lockctl("goals", "set", "--daily", "2h", "--weekly", "10h")
        let ui = try UIServerProcess(root: root)
        let python = try #require(TestTools.python, "the suite's Python tools are missing (run scripts/setup.sh)")
        let result = try ProcessRunner.run(
            python, [TestTools.repository + "/Tests/Scripts/ui_browser.py", ui.url, root.path, Binaries.lockctl, Self.artefacts],
            timeout: 600)
        #expect(
            result.status == 0,
            "\(result.stdout)\n\(result.stderr.suffix(3000))\nui: \(ui.stderr.suffix(2000))\ndaemon: \(daemon.log().suffix(2000))")
    }
}
