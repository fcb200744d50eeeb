import Foundation
import Glibc
import TestSupport
import Testing

/// The machine-wide install in real browsers: what `lockctl browser install` writes makes
/// Chromium and Firefox ESR install the companion by policy, each in a private mount namespace
/// where the scratch root's files stand in for the machine's.
extension BrowserCompanionTests {
    @Test(
        "machine-wide: the policy browser install writes installs the packed companion in real Chromium, on and locked, for an ordinary user",
        .enabled(
            if: companionBrowserMissing == nil && access("/etc/chromium", F_OK) == 0,
            "\(companionBrowserMissing ?? "/etc/chromium is missing")"),
        .timeLimit(.minutes(3)))
    func policyInstallHolds() throws {
        let root = try Self.root()
        let daemon = try DaemonProcess(root: root)
        try #require(try daemon.lockctl("start", "focus", "30m").status == 0)
        let bridge = Binaries.directory + "/simplylock-bridge"
        let install = try daemon.lockctl("browser", "install", "--bridge", bridge, "--json")
        try #require(install.status == 0, "\(install)")
        let id = try install.decode(InstallOutcome.self).chromiumID
        // The id is the signing key's, made here: not the unpacked extension's, and the same on a second install.
        #expect(id.count == 32 && id != "fjebkfhmlddjelldhcdbcdoigenpninp", "\(id)")
        let again = try daemon.lockctl("browser", "install", "--bridge", bridge, "--json")
        #expect(try again.decode(InstallOutcome.self).chromiumID == id, "a second install keeps the key and the id: \(again)")
        var key = stat()
        try #require(stat(root.path + "/var/lib/simplylock/browser-companion.pem", &key) == 0)
        #expect(key.st_mode & 0o777 == 0o600 && key.st_uid == 0, "the signing key is root's alone")
        let host = try String(
            contentsOfFile: root.path + "/etc/chromium/native-messaging-hosts/org.simplylock.bridge.json", encoding: .utf8)
        #expect(host.contains("chrome-extension://\(id)/"), "\(host)")
        // An ordinary user's browser (chromedriver, and so Chromium, run as nobody), in a private
        // mount namespace where the scratch root's /etc/chromium stands in for the machine's.
        let work = root.path + "/nobody"
        try FileManager.default.createDirectory(atPath: work + "/profile", withIntermediateDirectories: true)
        chown(work, 65534, 65534)
        chown(work + "/profile", 65534, 65534)
        try root.write(
            "nobody-driver",
            "#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=\(work) SIMPLYLOCK_SOCKET=\(root.socketPath) /usr/bin/chromedriver \"$@\"\n"
        )
        chmod(root.path + "/nobody-driver", 0o755)
        let artefacts = Self.repository + "/.build/artifacts/browser-companion"
        try FileManager.default.createDirectory(atPath: artefacts, withIntermediateDirectories: true)
        let python = try #require(TestTools.python)
        let script = [
            "mount --make-rprivate /", "mount --bind \(root.path)/etc/chromium /etc/chromium",
            "exec \(python) \(Self.repository)/Tests/Scripts/browser_policy_install.py \(root.socketPath) \(id) \(artefacts) "
                + "\(work)/profile \(root.path)/nobody-driver 65534",
        ].joined(separator: " && ")
        let run = try ProcessRunner.run("/usr/bin/unshare", ["-m", "sh", "-c", script], timeout: 150)
        print(run.stdout)
        #expect(run.status == 0, "\(run)\n\(daemon.log().suffix(2000))")
        let status = try daemon.lockctl("browser", "status")
        #expect(status.stdout.contains("private windows are off by policy"), "\(status)")
    }

    @Test(
        "machine-wide: Firefox ESR installs the companion from the policy browser install --firefox-unsigned writes, in private windows too",
        .enabled(if: firefoxMissing == nil, "\(firefoxMissing ?? "")"), .timeLimit(.minutes(2)))
    func firefoxPolicyInstall() throws {
        let root = try Self.root()
        let daemon = try DaemonProcess(root: root)
        let bridge = Binaries.directory + "/simplylock-bridge"
        // Before any companion connects, status says what the policies there do for each browser found.
        try root.write("usr/bin/chromium", "")
        try root.write("usr/bin/firefox-esr", "")
        try #require(try daemon.lockctl("browser", "install", "--bridge", bridge).status == 0)
        let before = try daemon.lockctl("browser", "status")
        #expect(before.stdout.contains("the policy installs it: restart the browser"), "\(before)")
        #expect(
            before.stdout.contains("Firefox installs only signed add-ons: sudo lockctl browser install --firefox-unsigned"), "\(before)")
        let install = try daemon.lockctl("browser", "install", "--bridge", bridge, "--firefox-unsigned")
        try #require(install.status == 0, "\(install)")
        #expect(try daemon.lockctl("browser", "status").stdout.contains("the policy installs it (ESR and developer editions only)"))
        // Debian's Firefox ESR reads /etc/firefox/policies/policies.json (strace: access() there, then
        // its distribution folder). The machine has no /etc/firefox: a private mount namespace gets an
        // overlay of /etc whose changes land in the scratch root, and the machine's /etc is untouched.
        for folder in ["etc-upper/firefox/policies", "etc-work", "firefox-profile", "home/.mozilla/native-messaging-hosts"] {
            try FileManager.default.createDirectory(atPath: root.path + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: root.path + "/etc/firefox/policies/policies.json", toPath: root.path + "/etc-upper/firefox/policies/policies.json")
        // The bridge for this run only (HOME's), as the machine-wide one is under the scratch root.
        try FileManager.default.copyItem(
            atPath: root.path + "/usr/lib/mozilla/native-messaging-hosts/org.simplylock.bridge.json",
            toPath: root.path + "/home/.mozilla/native-messaging-hosts/org.simplylock.bridge.json")
        let profile = root.path + "/firefox-profile"
        let machineHadPolicies = access("/etc/firefox/policies/policies.json", F_OK) == 0
        let script = [
            "mount --make-rprivate /",
            "mount -t overlay overlay -o lowerdir=/etc,upperdir=\(root.path)/etc-upper,workdir=\(root.path)/etc-work /etc",
            "HOME=\(root.path)/home SIMPLYLOCK_SOCKET=\(root.socketPath) exec timeout 60 /usr/bin/firefox-esr --headless --no-remote "
                + "--profile \(profile) about:blank > \(root.path)/firefox.log 2>&1",
        ].joined(separator: " && ")
        let firefox = try ChildProcess("/usr/bin/unshare", ["-m", "sh", "-c", script], environment: ProcessInfo.processInfo.environment)
        var answer = ""
        for _ in 0..<160 where !answer.contains(#""browser":"firefox""#) {
            usleep(250_000)
            answer = try ProcessRunner.run(
                "/usr/bin/curl", ["-sS", "--unix-socket", root.socketPath, "http://localhost/v1/browser/companions"]
            )
            .stdout
        }
        // Firefox saves its add-on list a moment after a change (and may not at SIGTERM): wait for it.
        for _ in 0..<120 {
            let saved = (try? String(contentsOfFile: profile + "/extensions.json", encoding: .utf8)) ?? ""
            if saved.contains("companion@simplylock.org") { break }
            usleep(250_000)
        }
        firefox.send(SIGTERM)
        _ = firefox.wait(timeout: 60)
        #expect((access("/etc/firefox/policies/policies.json", F_OK) == 0) == machineHadPolicies, "the machine's /etc is untouched")
        #expect(answer.contains(#""browser":"firefox""#) && answer.contains(#""active":true"#), "\(answer)")
        let state = try String(contentsOfFile: profile + "/extensions.json", encoding: .utf8)
        let addons = try JSONDecoder().decode(PolicyInstalledAddons.self, from: Data(state.utf8)).addons
        let companion = try #require(
            addons.first { $0.id == "companion@simplylock.org" }, "not installed: \(state.prefix(500))")
        #expect(companion.active == true)
        #expect(companion.incognito == "spanning")
        #expect(companion.signedState == 0, "the unsigned companion, accepted by the policy's pref")
    }
}

/// What `lockctl browser install --json` says it did (a shape of lockctl's own): the part the
/// test reads, the id Chromium gives the packed companion.
private struct InstallOutcome: Decodable {
    var chromiumID: String
}

/// Firefox's record of a profile's add-ons (`extensions.json`), the part the policy test reads.
private struct PolicyInstalledAddons: Decodable {
    struct Addon: Decodable {
        var id: String
        var active: Bool?
        var incognito: String?
        var signedState: Int?
    }
    var addons: [Addon]
}
