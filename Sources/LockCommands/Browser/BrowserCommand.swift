import ArgumentParser
import Foundation
import LockClient
import LockCore
import LockProtocol

/// `lockctl browser`: the browser companion's extension and its bridge to the daemon.
struct BrowserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser", abstract: "Set up the browser companion (the shield, path rules, the site meter).",
        subcommands: [Install.self, Uninstall.self, ExtensionPath.self, Status.self])

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the bridge with the browsers (and, as root, install the extension by policy).",
            discussion: """
                With --user-data-dir, registers the bridge for that one Chromium profile directory only \
                (DIR/NativeMessagingHosts/). Otherwise, as root: the bridge for Chromium, Chrome, Brave and \
                Firefox machine-wide, and the managed policies that install the extension, allow it in private \
                windows where the browser has such a policy, and keep it from being turned off. Chromium \
                installs only a packed, signed extension by policy: the first install makes its key (root-only, \
                in the state directory) and packs the extension with it. Chromium has no policy that allows an \
                extension in private windows, so its policy turns them off unless --keep-private-windows. \
                Firefox installs only signed add-ons: its policy installs the companion only with --firefox-unsigned \
                (ESR and developer editions). Paths are prefixed by --root.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("Register the bridge for this Chromium profile directory only.", valueName: "dir"))
        var userDataDir: String?
        @Option(help: ArgumentHelp("The bridge program (default: simplylock-bridge next to lockctl).", valueName: "path"))
        var bridge: String?
        @Flag(help: "Leave Chromium's private windows on (the companion does not run there).")
        var keepPrivateWindows = false
        @Flag(
            help: ArgumentHelp(
                "Also install it in Firefox ESR by policy, turning Firefox's add-on signature check off (locked).",
                discussion: "Release Firefox installs only add-ons Mozilla signed, and the companion is not signed."))
        var firefoxUnsigned = false

        func run() async throws {
            let bridge = try bridge ?? BrowserSetup.bridgePath()
            guard bridge.hasPrefix("/") else { throw CommandFailure(code: ExitCodes.usage, "--bridge: \(bridge) is not an absolute path") }
            var outcome = MachineInstall.Outcome(written: [], chromiumID: BrowserSetup.chromiumID)
            if let userDataDir {
                let path = userDataDir + "/NativeMessagingHosts/\(BrowserSetup.hostName).json"
                try BrowserSetup.write(path, BrowserSetup.chromiumHost(bridge: bridge))
                outcome.written.append(path)
            } else {
                guard getuid() == 0 || global.root != "/" else {
                    throw CommandFailure(
                        code: ExitCodes.refused, "machine-wide installation needs root",
                        hint: "sudo lockctl browser install, or --user-data-dir DIR for one Chromium profile")
                }
                outcome = try MachineInstall.run(
                    root: global.root, bridge: bridge, extensionDirectory: BrowserSetup.extensionPath(),
                    privateWindows: keepPrivateWindows, firefoxUnsigned: firefoxUnsigned)
            }
            if try global.printJSON(outcome) { return }
            for path in outcome.written { print("wrote \(path)") }
            if let firefox = outcome.firefox { print("firefox: \(firefox)") }
        }
    }

    struct Uninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove what browser install wrote (the bridge's manifests, the policies, the packed extension).",
            discussion: """
                Removes the native host manifests, the managed policies and the packed extension browser install \
                wrote. From Firefox's policies.json only the companion's entries are taken out: the file is put back \
                as it was before the first install if nothing else changed, and deleted only if nothing else is left \
                in it. The signing key is kept unless --forget-key: the companion's id in Chromium browsers is \
                derived from it, so a new key makes a new extension. With --user-data-dir, removes only that \
                profile's manifest. Paths are prefixed by --root; nothing to remove is not an error.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("Remove the bridge's manifest from this Chromium profile directory only.", valueName: "dir"))
        var userDataDir: String?
        @Flag(help: "Also remove the signing key (a later install gives the companion a new id).")
        var forgetKey = false

        func run() async throws {
            var outcome = MachineUninstall.Outcome(removed: [], kept: [])
            if let userDataDir {
                let path = userDataDir + "/NativeMessagingHosts/\(BrowserSetup.hostName).json"
                if try MachineUninstall.remove(path) { outcome.removed.append(path) }
            } else {
                guard getuid() == 0 || global.root != "/" else {
                    throw CommandFailure(
                        code: ExitCodes.refused, "machine-wide uninstallation needs root",
                        hint: "sudo lockctl browser uninstall, or --user-data-dir DIR for one Chromium profile")
                }
                outcome = try MachineUninstall.run(root: global.root, forgetKey: forgetKey)
            }
            if try global.printJSON(outcome) { return }
            for path in outcome.removed { print("removed \(path)") }
            if outcome.removed.isEmpty { print("nothing to remove") }
            for path in outcome.kept {
                print("kept \(path): the companion's id in Chromium browsers is derived from it (--forget-key removes it)")
            }
        }
    }

    struct ExtensionPath: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extension-path", abstract: "Print the folder of the unpacked extension (to load it by hand).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let path = try BrowserSetup.extensionPath()
            if try global.printJSON(["path": path]) { return }
            print(path)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the browsers found and whether the companion is active in each.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let companions = try await global.call { try $0.fetch(Endpoints.browserCompanions) }
            let rows = BrowserSetup.report(root: global.root, companions: companions)
            if try global.printJSON(rows) { return }
            print(TextFormat.table(rows.map { [$0.browser, $0.state, $0.detail] }))
        }
    }
}

/// Where the companion's pieces are, and the files that register them with the browsers.
enum BrowserSetup {
    /// The native messaging host's name, as the extension asks for it.
    static let hostName = "org.simplylock.bridge"
    /// The unpacked extension's id in Chromium browsers (fixed by the public key in its manifest);
    /// the packed one a machine-wide install makes has its own, from the key made there.
    static let chromiumID = "fjebkfhmlddjelldhcdbcdoigenpninp"
    /// The extension's id in Firefox.
    static let firefoxID = "companion@simplylock.org"

    static var executableDirectory: String {
        (URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path as NSString).deletingLastPathComponent
    }

    /// The bridge next to lockctl (a build folder, or the installed libexec folder).
    static func bridgePath() throws -> String {
        let directory = executableDirectory
        for candidate in [directory + "/simplylock-bridge", directory + "/../libexec/simplylock/simplylock-bridge"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate).standardized.path
        }
        throw CommandFailure(code: ExitCodes.failure, "simplylock-bridge is not next to lockctl", hint: "give it with --bridge PATH")
    }

    /// The unpacked extension: made by `make` in the build folder, installed in the data folder,
    /// or the source folder of a development build.
    static func extensionPath() throws -> String {
        let directory = executableDirectory
        for candidate in [
            directory + "/simplylock-companion", directory + "/../share/simplylock/browser/extension",
            directory + "/../../browser/extension",
        ] where FileManager.default.fileExists(atPath: candidate + "/manifest.json") {
            return URL(fileURLWithPath: candidate).standardized.path
        }
        throw CommandFailure(code: ExitCodes.failure, "the browser extension is not installed next to lockctl", hint: "run make")
    }

    /// The bridge's manifest for Chromium browsers: the extensions `ids` may start it.
    static func chromiumHost(bridge: String, ids: [String] = [chromiumID]) -> [String: Any] {
        [
            "name": hostName, "description": "SimplyLock browser companion bridge", "path": bridge, "type": "stdio",
            "allowed_origins": ids.map { "chrome-extension://\($0)/" },
        ]
    }

    static func firefoxHost(bridge: String) -> [String: Any] {
        [
            "name": hostName, "description": "SimplyLock browser companion bridge", "path": bridge, "type": "stdio",
            "allowed_extensions": [firefoxID],
        ]
    }

    /// Chromium-family folders under /etc: native hosts and managed policies.
    static let chromiumFamily: [(browser: String, hosts: String, policies: String)] = [
        ("chromium", "etc/chromium/native-messaging-hosts", "etc/chromium/policies/managed"),
        ("chrome", "etc/opt/chrome/native-messaging-hosts", "etc/opt/chrome/policies/managed"),
        ("brave", "etc/opt/chrome/native-messaging-hosts", "etc/brave/policies/managed"),
    ]

    static func write(_ path: String, _ object: [String: Any]) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure(code: ExitCodes.failure, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// One `doctor` line per browser installed here: ok where the companion is active, a warning
    /// with what to do where it is not (the names stay blocked there, without the shield or paths).
    static func doctorChecks(root: String, client: LockClient) -> [DoctorCheck] {
        guard let companions = try? client.fetch(Endpoints.browserCompanions) else { return [] }
        return report(root: root, companions: companions).map { row in
            row.state == "active"
                ? DoctorCheck("browser \(row.browser)", .ok, row.detail)
                : DoctorCheck(
                    "browser \(row.browser)", .warning, "the browser companion is \(row.state): \(row.detail)",
                    fix: row.browser == "flatpak"
                        ? "block sandboxed browsers as apps if the shield and path rules matter"
                        : "sudo lockctl browser install, then open the browser (or load lockctl browser extension-path by hand)")
        }
    }

    /// What to do where no companion has connected: whether the policy that installs it is
    /// there for this browser (then a restart picks it up), and if not, how to get it.
    static func installHint(root: String, browser: String) -> String {
        func object(_ path: String) -> [String: Any]? {
            FileManager.default.contents(atPath: Paths.join(root, path)).flatMap {
                try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
            }
        }
        if browser == "firefox" {
            let settings =
                (object("etc/firefox/policies/policies.json")?["policies"] as? [String: Any])?["ExtensionSettings"] as? [String: Any]
            return settings?[firefoxID] != nil
                ? "the policy installs it (ESR and developer editions only): restart Firefox"
                : "Firefox installs only signed add-ons: sudo lockctl browser install --firefox-unsigned (ESR), or add the .xpi by hand"
        }
        if let entry = chromiumFamily.first(where: { $0.browser == browser }),
            object(entry.policies + "/simplylock.json")?["ExtensionSettings"] != nil
        {
            return "the policy installs it: restart the browser"
        }
        return "sudo lockctl browser install, then restart the browser"
    }

    /// Whether private windows are covered where the companion runs: it runs there, or this
    /// browser's policy (written by `browser install`) turns them off.
    static func privateWindowsNote(root: String, browser: String, incognito: Bool?) -> (covered: Bool, note: String) {
        guard incognito == false else { return (true, "") }
        if let entry = chromiumFamily.first(where: { $0.browser == browser }),
            let data = FileManager.default.contents(atPath: Paths.join(root, entry.policies) + "/simplylock.json"),
            let policy = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            policy["IncognitoModeAvailability"] as? Int == 1
        {
            return (true, "; private windows are off by policy")
        }
        return (false, "; not allowed in private windows: allow it there (extension details)")
    }

    struct Row: Encodable {
        var browser: String
        var state: String
        var detail: String
    }

    /// Each browser installed (its program in /usr/bin, under `root`) with whether the companion
    /// is active in it, and what to do where it is not.
    static func report(root: String, companions: BrowserCompanions) -> [Row] {
        let programs: [(String, [String])] = [
            ("chromium", ["usr/bin/chromium", "usr/bin/chromium-browser"]),
            ("chrome", ["usr/bin/google-chrome", "opt/google/chrome/chrome"]),
            ("brave", ["usr/bin/brave-browser", "opt/brave.com/brave/brave"]), ("firefox", ["usr/bin/firefox", "usr/bin/firefox-esr"]),
        ]
        var rows: [Row] = []
        for (browser, paths) in programs where paths.contains(where: { FileManager.default.fileExists(atPath: Paths.join(root, $0)) }) {
            let seen = companions.companions.filter { $0.browser == browser }
            if let active = seen.first(where: \.active) {
                let (covered, privateWindows) = privateWindowsNote(root: root, browser: browser, incognito: active.incognito)
                rows.append(
                    Row(
                        browser: browser, state: covered ? "active" : "partly active",
                        detail: "companion \(active.extensionVersion) connected (uid \(active.uid))\(privateWindows)"))
            } else if let last = seen.first {
                rows.append(
                    Row(
                        browser: browser, state: "inactive", detail: "last heard \(last.lastSeen.formatted(.iso8601)); is the browser open?"
                    ))
            } else {
                rows.append(
                    Row(
                        browser: browser, state: "not seen",
                        detail: "no companion has connected: " + installHint(root: root, browser: browser)))
            }
        }
        // Companions of browsers not found where this looks (another root, a browser in the home
        // directory) are listed too.
        for companion in companions.companions where !rows.contains(where: { $0.browser == companion.browser }) {
            let privateWindows = privateWindowsNote(root: root, browser: companion.browser, incognito: companion.incognito).note
            rows.append(
                Row(
                    browser: companion.browser, state: companion.active ? "active" : "inactive",
                    detail: "companion \(companion.extensionVersion), uid \(companion.uid)\(privateWindows)"))
        }
        if FileManager.default.fileExists(atPath: Paths.join(root, "var/lib/flatpak/app")) {
            rows.append(
                Row(
                    browser: "flatpak", state: "not covered",
                    detail: "sandboxed browsers cannot start the bridge; the DNS filter and firewall still block, without the shield"))
        }
        return rows
    }
}
