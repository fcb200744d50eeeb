import Foundation
import TestSupport
import Testing

/// `lockctl browser install` and `uninstall` as root, under a scratch root.
extension BrowserCompanionTests {
    @Test("browser install under --root: native hosts and managed policies, Firefox's policies merged, nothing outside the root")
    func machineWideInstallUnderRoot() throws {
        let root = try TestRoot()
        // The administrator's own file, in their spelling.
        let adminPolicies = #"{"policies": {"DisableTelemetry": true}}"#
        try root.write("etc/firefox/policies/policies.json", adminPolicies)
        let result = try ProcessRunner.run(
            Binaries.lockctl, ["--root", root.path, "browser", "install", "--bridge", "/usr/libexec/simplylock/simplylock-bridge"])
        try #require(result.status == 0, "\(result)")
        for path in [
            "etc/chromium/native-messaging-hosts/org.simplylock.bridge.json",
            "etc/opt/chrome/native-messaging-hosts/org.simplylock.bridge.json",
            "usr/lib/mozilla/native-messaging-hosts/org.simplylock.bridge.json", "etc/chromium/policies/managed/simplylock.json",
            "etc/opt/chrome/policies/managed/simplylock.json", "etc/brave/policies/managed/simplylock.json",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.path + "/" + path), "\(path) was not written")
            #expect(result.stdout.contains(root.path + "/" + path))
        }
        // The policy names a packed extension that exists: a CRX3 signed with the key made here,
        // whose update manifest gives the id the policy forces in.
        let chromium = try String(contentsOfFile: root.path + "/etc/chromium/policies/managed/simplylock.json", encoding: .utf8)
        let updates = try String(contentsOfFile: root.path + "/var/lib/simplylock-browser/updates.xml", encoding: .utf8)
        let id = try #require(updates.firstMatch(of: /appid='([a-p]{32})'/)?.1).description
        #expect(
            chromium.contains(id) && chromium.contains("force_installed")
                && chromium.contains("file://\(root.path)/var/lib/simplylock-browser/updates.xml"), "\(chromium)")
        let crx = try Data(contentsOf: URL(fileURLWithPath: root.path + "/var/lib/simplylock-browser/simplylock-companion.crx"))
        #expect(crx.prefix(4) == Data("Cr24".utf8) && crx[4] == 3, "a CRX3")
        #expect(updates.contains("codebase='file://\(root.path)/var/lib/simplylock-browser/simplylock-companion.crx'"), "\(updates)")
        // Firefox installs only signed add-ons: without --firefox-unsigned its policy does not claim the
        // companion (and says so); with it, ESR's signature check is turned off, locked.
        let firefox = try String(contentsOfFile: root.path + "/etc/firefox/policies/policies.json", encoding: .utf8)
        #expect(firefox == adminPolicies, "the administrator's own policies are left as they are: \(firefox)")
        #expect(result.stdout.contains("firefox: not installed by policy"), "\(result.stdout)")
        let unsigned = try ProcessRunner.run(
            Binaries.lockctl,
            ["--root", root.path, "browser", "install", "--bridge", "/usr/libexec/simplylock/simplylock-bridge", "--firefox-unsigned"])
        try #require(unsigned.status == 0, "\(unsigned)")
        let esr = try String(contentsOfFile: root.path + "/etc/firefox/policies/policies.json", encoding: .utf8)
        #expect(esr.contains("DisableTelemetry") && esr.contains("companion@simplylock.org") && esr.contains(#""private_browsing" : true"#))
        #expect(esr.contains("xpinstall.signatures.required") && esr.contains(#""Status" : "locked""#), "\(esr)")
        // Installing again without the flag turns Firefox's signature check back on with the
        // companion's entry gone: the administrator's file is back byte for byte.
        let signedAgain = try ProcessRunner.run(
            Binaries.lockctl, ["--root", root.path, "browser", "install", "--bridge", "/usr/libexec/simplylock/simplylock-bridge"])
        try #require(signedAgain.status == 0, "\(signedAgain)")
        let withdrawn = try String(contentsOfFile: root.path + "/etc/firefox/policies/policies.json", encoding: .utf8)
        #expect(withdrawn == adminPolicies, "\(withdrawn)")
        let unsignedAgain = try ProcessRunner.run(
            Binaries.lockctl,
            ["--root", root.path, "browser", "install", "--bridge", "/usr/libexec/simplylock/simplylock-bridge", "--firefox-unsigned"])
        try #require(unsignedAgain.status == 0, "\(unsignedAgain)")
        // Every path written is under the root.
        for output in [result.stdout, unsigned.stdout] {
            #expect(
                output.split(separator: "\n").filter { !$0.hasPrefix("firefox: ") }.allSatisfy { $0.hasPrefix("wrote \(root.path)/") },
                "\(output)")
        }
        // As an ordinary user without --root, nothing machine-wide is attempted.
        let refused = try ProcessRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.lockctl, "browser", "install", "--bridge", "/x"])
        #expect(refused.status != 0 && refused.stderr.contains("needs root"), "\(refused)")

        // Uninstall takes out exactly what install wrote: the administrator's policies.json is
        // back byte for byte, the key stays (the id derives from it), a second run is a no-op.
        let installed = (result.stdout + unsigned.stdout).split(separator: "\n").compactMap { line in
            line.hasPrefix("wrote ") ? String(line.dropFirst("wrote ".count)) : nil
        }
        let key = root.path + "/var/lib/simplylock/browser-companion.pem"
        let keyBytes = try Data(contentsOf: URL(fileURLWithPath: key))
        let uninstall = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "browser", "uninstall"])
        try #require(uninstall.status == 0, "\(uninstall)")
        let policies = root.path + "/etc/firefox/policies/policies.json"
        #expect(try Data(contentsOf: URL(fileURLWithPath: policies)) == Data(adminPolicies.utf8), "\(uninstall)")
        for path in installed where path != key && path != policies {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) was left: \(uninstall.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: root.path + "/var/lib/simplylock-browser"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == keyBytes && uninstall.stdout.contains("kept \(key)"), "\(uninstall)")
        #expect(uninstall.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("removed \(root.path)/") || $0.hasPrefix("kept ") })
        let again = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "browser", "uninstall"])
        #expect(again.status == 0 && again.stdout.hasPrefix("nothing to remove\n"), "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: policies)) == Data(adminPolicies.utf8))
        let refusedUninstall = try ProcessRunner.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.lockctl, "browser", "uninstall"])
        #expect(refusedUninstall.status != 0 && refusedUninstall.stderr.contains("needs root"), "\(refusedUninstall)")
        let forget = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "browser", "uninstall", "--forget-key"])
        #expect(forget.status == 0 && forget.stdout == "removed \(key)\n", "\(forget)")
    }

    @Test("browser uninstall: Firefox policies the administrator changed since are kept; a file of the companion's alone is deleted")
    func uninstallFirefoxPolicies() throws {
        let root = try TestRoot()
        let install = [
            "--root", root.path, "browser", "install", "--bridge", "/usr/libexec/simplylock/simplylock-bridge", "--firefox-unsigned",
        ]
        let policies = root.path + "/etc/firefox/policies/policies.json"
        // No file before: the one install made is deleted.
        try #require(try ProcessRunner.run(Binaries.lockctl, install).status == 0)
        let removed = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "browser", "uninstall"])
        #expect(removed.status == 0 && !FileManager.default.fileExists(atPath: policies), "\(removed)")
        // The administrator adds a policy after the install: it stays, the companion's entries go.
        try root.write("etc/firefox/policies/policies.json", #"{"policies": {"DisableTelemetry": true}}"#)
        try #require(try ProcessRunner.run(Binaries.lockctl, install).status == 0)
        // The administrator edits Firefox's document as it stands (its shape is Firefox's, not ours).
        var document = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: policies))) as? [String: Any])
        var own = try #require(document["policies"] as? [String: Any])
        own["DisableAppUpdate"] = true
        document["policies"] = own
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: policies))
        let kept = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "browser", "uninstall", "--json"])
        #expect(kept.status == 0, "\(kept)")
        let left = try String(contentsOfFile: policies, encoding: .utf8)
        #expect(left.contains("DisableTelemetry") && left.contains("DisableAppUpdate"), "\(left)")
        #expect(!left.contains("companion@simplylock.org") && !left.contains("xpinstall"), "\(left)")
        // A policies.json that is not JSON stops the uninstall before anything is removed.
        try #require(try ProcessRunner.run(Binaries.lockctl, install).status == 0)
        try root.write("etc/firefox/policies/policies.json", "{ broken")
        let broken = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "browser", "uninstall"])
        #expect(broken.status != 0 && broken.stderr.contains("is not a JSON object; nothing was removed"), "\(broken)")
        #expect(FileManager.default.fileExists(atPath: root.path + "/var/lib/simplylock-browser/updates.xml"))
        #expect(try String(contentsOfFile: policies, encoding: .utf8) == "{ broken")
    }
}
