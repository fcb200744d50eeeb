import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// What `make install` needs: the debug build and the generated completions and man pages
/// (scripts/test.sh runs `make generated CONFIGURATION=debug` before the tests; the tests
/// cannot build themselves while `swift test` holds the build directory).
enum MakePrerequisites {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
    static let generated = [
        "completions/lockctl.bash", "completions/_lockctl", "completions/lockctl.fish",
        "man/man1/lockctl.1", "man/man8/simplylockd.8", "man/man5/simplylockd.toml.5",
    ]
    static let missing: [String] = {
        var missing = which("make") == nil ? ["make"] : []
        missing += generated.map { ".build/simplylock-generated/" + $0 }.filter {
            !FileManager.default.fileExists(atPath: repository + "/" + $0)
        }
        return missing
    }()
}

@Suite(
    "make install / uninstall",
    .enabled(
        if: MakePrerequisites.missing.isEmpty,
        "run `make generated CONFIGURATION=debug` first (scripts/test.sh does); missing: \(MakePrerequisites.missing.joined(separator: ", "))"
    ))
struct MakeInstallTests {
    static func make(_ arguments: [String]) throws -> CommandResult {
        let result = try ProcessRunner.run(
            which("make")!,
            [
                "--no-print-directory", "-C", MakePrerequisites.repository,
                "CONFIGURATION=debug", "BUILDDIR=\(Binaries.directory)",
            ] + arguments, timeout: 120)
        #expect(result.status == 0, "make \(arguments.joined(separator: " ")) failed:\n\(result)")
        return result
    }

    /// Every file under `directory`, relative, with its permission bits.
    static func files(in directory: String) throws -> [String: String] {
        var found: [String: String] = [:]
        for relative in FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? [] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + relative)
            guard attributes[.type] as? FileAttributeType != .typeDirectory else { continue }
            found[relative] = String((attributes[.posixPermissions] as! Int), radix: 8)
        }
        return found
    }

    static func expected(prefix: String) throws -> [String: String] {
        var files = [
            "etc/simplylock/simplylockd.toml": "644",
            "\(prefix)/bin/lockctl": "755",
            "\(prefix)/bin/simplylock-ui": "755",
            "\(prefix)/sbin/simplylockd": "755",
            "\(prefix)/lib/systemd/system/simplylockd.service": "644",
            "\(prefix)/lib/systemd/system/simplylockd.socket": "644",
            "\(prefix)/lib/sysusers.d/simplylock.conf": "644",
            "\(prefix)/lib/tmpfiles.d/simplylock.conf": "644",
            "\(prefix)/lib/systemd/user/simplylock-notify.service": "644",
            "\(prefix)/share/applications/simplylock.desktop": "644",
            "\(prefix)/share/bash-completion/completions/lockctl": "644",
            "\(prefix)/share/zsh/site-functions/_lockctl": "644",
            "\(prefix)/share/fish/vendor_completions.d/lockctl.fish": "644",
            "\(prefix)/share/man/man1/lockctl.1": "644",
            "\(prefix)/share/man/man8/simplylockd.8": "644",
            "\(prefix)/share/man/man5/simplylockd.toml.5": "644",
            "\(prefix)/share/simplylock/simplylockd.toml": "644",
            "\(prefix)/share/simplylock/services.toml": "644",
            "\(prefix)/share/simplylock/exec-guard.bpf.o": "644",
            "\(prefix)/libexec/simplylock/simplylock-bridge": "755",
            "\(prefix)/share/simplylock/browser/simplylock-companion.xpi": "644",
        ]
        let extensionFiles = ["manifest.json", "background.js", "shield.html", "shield.js", "shield.css", "lib/rules.js"]
        for file in extensionFiles { files["\(prefix)/share/simplylock/browser/extension/\(file)"] = "644" }
        for profile in try FileManager.default.contentsOfDirectory(atPath: MakePrerequisites.repository + "/config/profiles") {
            files["\(prefix)/share/simplylock/profiles/\(profile)"] = "644"
        }
        for file in try FileManager.default.subpathsOfDirectory(atPath: MakePrerequisites.repository + "/web/ui")
        where [".html", ".css", ".svg", ".js"].contains(where: file.hasSuffix) {
            files["\(prefix)/share/simplylock/ui/\(file)"] = "644"
        }
        for data in try FileManager.default.contentsOfDirectory(atPath: MakePrerequisites.repository + "/config")
        where (data.hasSuffix(".toml") || data.hasSuffix(".txt")) && data != "simplylockd.toml" && data != "services.toml" {
            files["\(prefix)/share/simplylock/\(data)"] = "644"
        }
        return files
    }

    @Test("PREFIX=/usr/local: the complete file list, units pointing at the binary, uninstall removes it all")
    func defaultPrefix() throws {
        let stage = try TestRoot(hosts: "")
        try FileManager.default.removeItem(atPath: stage.path + "/etc")
        let install = try Self.make(["install", "DESTDIR=\(stage.path)"])
        #expect(!install.stdout.contains("enable with"), "post-install steps must not run with DESTDIR")
        #expect(try Self.files(in: stage.path) == Self.expected(prefix: "usr/local"))
        let service = try String(contentsOfFile: stage.path + "/usr/local/lib/systemd/system/simplylockd.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/local/sbin/simplylockd\n"))
        // Stripped (no symbol table left, smaller than what was built), and still runs.
        for (installed, built) in [
            ("/usr/local/sbin/simplylockd", Binaries.daemon), ("/usr/local/bin/lockctl", Binaries.lockctl),
            ("/usr/local/bin/simplylock-ui", Binaries.directory + "/simplylock-ui"),
        ] {
            let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
            #expect(size(stage.path + installed) < size(built), "\(installed) is not stripped")
            if let readelf = which("readelf") {
                let sections = try ProcessRunner.run(readelf, ["-S", "-W", stage.path + installed]).stdout
                #expect(!sections.contains(".symtab") && !sections.contains(".debug_info"), "\(installed) still has symbols")
            }
            #expect(try ProcessRunner.run(stage.path + installed, ["--version"]).stdout.contains(API.softwareVersion))
        }
        let userUnit = try String(contentsOfFile: stage.path + "/usr/local/lib/systemd/user/simplylock-notify.service", encoding: .utf8)
        #expect(userUnit.contains("\nExecStart=/usr/local/bin/lockctl notify\n"))
        // Notifications name this entry (desktop-entry=simplylock).
        let entry = try String(contentsOfFile: stage.path + "/usr/local/share/applications/simplylock.desktop", encoding: .utf8)
        #expect(entry.contains("\nExec=/usr/local/bin/lockctl ui\n"))
        let manPage = try String(contentsOfFile: stage.path + "/usr/local/share/man/man1/lockctl.1", encoding: .utf8)
        #expect(manPage.contains("LOCKCTL"))
        let completion = try String(contentsOfFile: stage.path + "/usr/local/share/bash-completion/completions/lockctl", encoding: .utf8)
        #expect(completion.contains("profiles"))

        // The installed daemon finds its shipped data next to itself (../share/simplylock).
        let root = try TestRoot()
        let installed = try ChildProcess(
            stage.path + "/usr/local/sbin/simplylockd", ["--root", root.path, "--enforcers", "hosts"],
            environment: ProcessRunner.environment(), stdout: .null, stderr: .null)
        defer {
            installed.send(SIGTERM)
            _ = installed.wait(timeout: 10)
        }
        var listed = ""
        try waitUntil("the installed daemon to answer") {
            let result = try ProcessRunner.run(stage.path + "/usr/local/bin/lockctl", ["--root", root.path, "profiles", "list"])
            listed = result.stdout
            return result.status == 0
        }
        #expect(listed.contains("deep-work") && listed.contains("system"))
        // The installed lockctl ui runs the simplylock-ui beside it, which finds its files in ../share/simplylock/ui.
        let ui = try UIServerProcess(root: root, lockctl: stage.path + "/usr/local/bin/lockctl")
        let page = try ui.request("GET", "/", headers: [("Host", ui.host), ("Cookie", try ui.login())])
        #expect(page.status == 200 && page.body.contains("tabbar"), "\(page.raw.prefix(300))")

        // An edited configuration survives re-install and uninstall.
        let config = stage.path + "/etc/simplylock/simplylockd.toml"
        try "log_level = \"debug\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try Self.make(["install", "DESTDIR=\(stage.path)"]).stdout.contains("keeping existing"))
        _ = try Self.make(["uninstall", "DESTDIR=\(stage.path)"])
        #expect(try Self.files(in: stage.path) == ["etc/simplylock/simplylockd.toml": "644"])
        try FileManager.default.removeItem(atPath: config)
        _ = try Self.make(["install", "DESTDIR=\(stage.path)"])
        // What the installed lockctl's browser install writes goes too, but for its signing key.
        let browser = try ProcessRunner.run(
            stage.path + "/usr/local/bin/lockctl", ["--root", stage.path, "browser", "install", "--firefox-unsigned"])
        try #require(browser.status == 0, "\(browser)")
        #expect(try Self.make(["uninstall", "DESTDIR=\(stage.path)"]).stdout.contains("browser uninstall"))
        #expect(try Self.files(in: stage.path) == ["var/lib/simplylock/browser-companion.pem": "600"])
    }

    @Test("uninstall refuses while blocks are saved; FORCE=1 ends them and leaves nothing in the hosts file")
    func uninstallWithBlocks() throws {
        let stage = try TestRoot(hosts: "127.0.0.1 localhost\n")
        _ = try Self.make(["install", "DESTDIR=\(stage.path)"])
        // The staged daemon manages the stage's own hosts file and state, as the installed one
        // would manage the machine's.
        let daemon = try ChildProcess(
            stage.path + "/usr/local/sbin/simplylockd", ["--root", stage.path, "--enforcers", "hosts"],
            environment: ProcessRunner.environment(), stdout: .null, stderr: .null)
        let lockctl = stage.path + "/usr/local/bin/lockctl"
        try waitUntil("the staged daemon to answer") { try ProcessRunner.run(lockctl, ["--root", stage.path, "status"]).status == 0 }
        #expect(try ProcessRunner.run(lockctl, ["--root", stage.path, "start", "news", "1h", "--strict"]).status == 0)
        daemon.send(SIGTERM)
        #expect(daemon.wait(timeout: 15) != nil)
        #expect(stage.hosts().contains("# BEGIN simplylock"), "a stopped daemon leaves its block in the hosts file")

        let refused = try ProcessRunner.run(
            which("make")!,
            [
                "--no-print-directory", "-C", MakePrerequisites.repository, "CONFIGURATION=debug",
                "BUILDDIR=\(Binaries.directory)", "uninstall", "DESTDIR=\(stage.path)",
            ], timeout: 120)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("uninstall refused") && refused.stderr.contains("FORCE=1"), "\(refused)")
        #expect(FileManager.default.fileExists(atPath: stage.path + "/usr/local/sbin/simplylockd"), "nothing was removed")

        let forced = try Self.make(["uninstall", "DESTDIR=\(stage.path)", "FORCE=1", "RELEASE_FLAGS=--enforcers hosts"])
        #expect(forced.stdout.contains("ended 1 saved block"), "\(forced)")
        #expect(stage.hosts() == "127.0.0.1 localhost\n")
        #expect(!FileManager.default.fileExists(atPath: stage.path + "/usr/local/sbin/simplylockd"))
    }

    @Test("PREFIX=/usr: everything under /usr, configuration still in /etc")
    func usrPrefix() throws {
        let stage = try TestRoot(hosts: "")
        try FileManager.default.removeItem(atPath: stage.path + "/etc")
        _ = try Self.make(["install", "DESTDIR=\(stage.path)", "PREFIX=/usr"])
        #expect(try Self.files(in: stage.path) == Self.expected(prefix: "usr"))
        let service = try String(contentsOfFile: stage.path + "/usr/lib/systemd/system/simplylockd.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/sbin/simplylockd\n"))
        _ = try Self.make(["uninstall", "DESTDIR=\(stage.path)", "PREFIX=/usr"])
        #expect(try Self.files(in: stage.path).isEmpty)
    }

    @Test("without DESTDIR, install runs what a package's postinst would (dry run)")
    func postinstallSteps() throws {
        let dryRun = try Self.make(["-n", "install"])
        for step in [
            "systemd-sysusers /usr/local/lib/sysusers.d/simplylock.conf",
            "systemd-tmpfiles --create /usr/local/lib/tmpfiles.d/simplylock.conf", "systemctl daemon-reload",
        ] {
            #expect(dryRun.stdout.contains(step), "missing: \(step)")
        }
        #expect(!(try Self.make(["-n", "install", "DESTDIR=/nonexistent"])).stdout.contains("systemd-sysusers"))
    }

    @Test(
        "systemd finds the installed units, sysusers and tmpfiles entries where they were put",
        .enabled(
            if: ["systemd-analyze", "systemd-sysusers", "systemd-tmpfiles"].allSatisfy { which($0) != nil },
            "systemd's tools are not installed"))
    func searchPaths() throws {
        let stage = try TestRoot(hosts: "")
        _ = try Self.make(["install", "DESTDIR=\(stage.path)"])
        let security = try ProcessRunner.run(
            which("systemd-analyze")!, ["security", "--offline=true", "--root=\(stage.path)", "--no-pager", "simplylockd.service"])
        #expect(security.status == 0, "\(security)")
        let sysusers = try ProcessRunner.run(which("systemd-sysusers")!, ["--root=\(stage.path)", "--dry-run"])
        #expect((sysusers.stdout + sysusers.stderr).contains("Creating group 'simplylock'"), "\(sysusers)")
        let tmpfiles = try ProcessRunner.run(which("systemd-tmpfiles")!, ["--root=\(stage.path)", "--cat-config"])
        #expect(tmpfiles.stdout.contains("d /etc/simplylock/profiles.d 0755 root root -"))
    }
}
