import Foundation
import LockCore
import _CryptoExtras

/// `lockctl browser install` as root: the bridge for every browser, and the managed policies
/// that install the companion and keep it on.
///
/// Chromium installs an extension by policy only from a packed, signed extension (CRX3) named
/// by an update manifest; it takes both from `file://` addresses, so no server is needed. The
/// signing key is made here on first install (it names the extension: its id is derived from
/// it) and kept root-only in the state directory; nothing secret is in the repository.
enum MachineInstall {
    /// What an install wrote, and the id the companion has in Chromium browsers here.
    struct Outcome: Encodable {
        var written: [String]
        var chromiumID: String
        /// What the Firefox policy does, in words (nil: not a machine-wide install).
        var firefox: String?
    }

    /// Where the packed extension and its update manifest are: readable by every user, since
    /// each user's browser reads them (the state directory is not).
    static func packDirectory(root: String) -> String { Paths.join(root, "var/lib/simplylock-browser") }
    static func keyPath(root: String) -> String { Paths(root: root).stateDirectory + "/browser-companion.pem" }

    static func run(root: String, bridge: String, extensionDirectory: String, privateWindows: Bool, firefoxUnsigned: Bool) throws
        -> Outcome
    {
        func under(_ path: String) -> String { Paths.join(root, path) }
        let archivePath = (extensionDirectory as NSString).deletingLastPathComponent + "/simplylock-companion.xpi"
        guard let archive = FileManager.default.contents(atPath: archivePath) else {
            throw CommandFailure(code: ExitCodes.failure, "the packed extension \(archivePath) is missing", hint: "run make")
        }
        var written: [String] = []
        let directory = packDirectory(root: root)
        // Made before the key's root-only folder, so that folders it creates are readable.
        try makeDirectory(directory, mode: 0o755)
        let (key, madeKey) = try signingKey(at: keyPath(root: root))
        if madeKey { written.append(keyPath(root: root)) }
        let crx = CRX3(key: key)
        let id = crx.extensionID
        let packPath = directory + "/simplylock-companion.crx"
        let manifestPath = directory + "/updates.xml"
        try writeData(packPath, try crx.pack(archive: archive), mode: 0o644)
        try writeData(
            manifestPath, Data(updateManifest(id: id, pack: packPath, version: version(of: extensionDirectory)).utf8), mode: 0o644)
        written += [packPath, manifestPath]
        // Private windows: Chromium has no policy to allow an extension there, so the policy
        // turns them off unless asked not to (then `browser status` says they are not covered).
        var chromiumPolicy: [String: Any] = [
            "ExtensionSettings": [id: ["installation_mode": "force_installed", "update_url": fileURL(manifestPath)]]
        ]
        if !privateWindows { chromiumPolicy["IncognitoModeAvailability"] = 1 }
        for entry in BrowserSetup.chromiumFamily {
            let host = under(entry.hosts) + "/\(BrowserSetup.hostName).json"
            if !written.contains(host) {
                try BrowserSetup.write(host, BrowserSetup.chromiumHost(bridge: bridge, ids: [id, BrowserSetup.chromiumID]))
                written.append(host)
            }
            let policy = under(entry.policies) + "/simplylock.json"
            try BrowserSetup.write(policy, chromiumPolicy)
            written.append(policy)
        }
        let firefoxHostPath = under("usr/lib/mozilla/native-messaging-hosts") + "/\(BrowserSetup.hostName).json"
        try BrowserSetup.write(firefoxHostPath, BrowserSetup.firefoxHost(bridge: bridge))
        written.append(firefoxHostPath)
        // Debian's Firefox ESR reads this path too (its own /etc/firefox-esr is for preferences).
        let policiesPath = under("etc/firefox/policies") + "/policies.json"
        let firefox: String
        if firefoxUnsigned {
            try BrowserSetup.write(policiesPath, firefoxPolicies(existing: policiesPath, xpi: fileURL(archivePath), install: true))
            written.append(policiesPath)
            firefox = "installed by policy where Firefox accepts unsigned add-ons (ESR, developer editions); not in release Firefox"
        } else {
            if FileManager.default.fileExists(atPath: policiesPath) {
                try BrowserSetup.write(policiesPath, firefoxPolicies(existing: policiesPath, xpi: "", install: false))
                written.append(policiesPath)
            }
            firefox =
                "not installed by policy: Firefox installs only signed add-ons (ESR: --firefox-unsigned turns its check off); "
                + "add it by hand from the .xpi where Firefox allows"
        }
        return Outcome(written: written, chromiumID: id, firefox: firefox)
    }

    /// Firefox reads one policies.json: the companion's entries are merged into what is there (or
    /// taken out of it), the administrator's own kept.
    ///
    /// Release Firefox installs only add-ons Mozilla signed; ESR and developer editions accept an
    /// unsigned one with `xpinstall.signatures.required` off, which their `Preferences` policy may
    /// set (locked). That turns the check off for every add-on, so it is asked for, not assumed.
    static func firefoxPolicies(existing path: String, xpi: String, install: Bool) -> [String: Any] {
        var document = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))) as? [String: Any] ?? [:]
        var policies = document["policies"] as? [String: Any] ?? [:]
        var settings = policies["ExtensionSettings"] as? [String: Any] ?? [:]
        var preferences = policies["Preferences"] as? [String: Any] ?? [:]
        let signatures = "xpinstall.signatures.required"
        if install {
            settings[BrowserSetup.firefoxID] = ["installation_mode": "force_installed", "private_browsing": true, "install_url": xpi]
            preferences[signatures] = ["Value": false, "Status": "locked"]
        } else {
            settings[BrowserSetup.firefoxID] = nil
        }
        policies["ExtensionSettings"] = settings.isEmpty ? nil : settings
        policies["Preferences"] = preferences.isEmpty ? nil : preferences
        document["policies"] = policies
        return document
    }

    /// The key made at the first install, or the one made then (so the id stays the same and
    /// browsers update the companion in place).
    static func signingKey(at path: String) throws -> (_RSA.Signing.PrivateKey, made: Bool) {
        if let pem = try? String(contentsOfFile: path, encoding: .utf8) {
            do {
                return (try _RSA.Signing.PrivateKey(pemRepresentation: pem), false)
            } catch {
                throw CommandFailure(
                    code: ExitCodes.failure, "\(path) is not an RSA private key: \(error)",
                    hint: "remove it to make a new one (the companion then gets a new id: run browser install again)")
            }
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        try makeDirectory((path as NSString).deletingLastPathComponent, mode: 0o750)
        try writeData(path, Data(key.pkcs8PEMRepresentation.utf8), mode: 0o600)
        return (key, true)
    }

    static func updateManifest(id: String, pack: String, version: String) -> String {
        """
        <?xml version='1.0' encoding='UTF-8'?>
        <gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'>
          <app appid='\(id)'>
            <updatecheck codebase='\(fileURL(pack))' version='\(version)' />
          </app>
        </gupdate>

        """
    }

    /// The file's address, its whole path: under a scratch root (tests) the browser reads the
    /// packed extension where the root is.
    static func fileURL(_ path: String) -> String { URL(fileURLWithPath: path).absoluteString }

    static func version(of extensionDirectory: String) throws -> String {
        let manifest = FileManager.default.contents(atPath: extensionDirectory + "/manifest.json")
        guard let manifest, let object = try? JSONSerialization.jsonObject(with: manifest) as? [String: Any],
            let version = object["version"] as? String
        else { throw CommandFailure(code: ExitCodes.failure, "\(extensionDirectory)/manifest.json has no version") }
        return version
    }

    static func makeDirectory(_ path: String, mode: Int) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
        } catch {
            throw CommandFailure(code: ExitCodes.failure, "cannot create \(path): \(error.localizedDescription)")
        }
    }

    /// Written whole or not at all (a temporary file renamed over), with its mode set before.
    static func writeData(_ path: String, _ data: Data, mode: Int) throws {
        do {
            let temporary = path + ".tmp"
            unlink(temporary)
            FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: mode])
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            throw CommandFailure(code: ExitCodes.failure, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
