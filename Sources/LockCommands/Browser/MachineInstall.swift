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
    /// Firefox's policies.json as the administrator had it before the first install changed it,
    /// so that uninstall can put it back byte for byte.
    static func firefoxOriginalPath(root: String) -> String { Paths(root: root).stateDirectory + "/firefox-policies.json.orig" }
    /// Debian's Firefox ESR reads this path too (its own /etc/firefox-esr is for preferences).
    static let firefoxPoliciesPath = "etc/firefox/policies/policies.json"
    static let firefoxHostDirectory = "usr/lib/mozilla/native-messaging-hosts"
    static let signaturePreference = "xpinstall.signatures.required"
    static var signatureOff: [String: Any] { ["Value": false, "Status": "locked"] }

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
        let firefoxHostPath = under(firefoxHostDirectory) + "/\(BrowserSetup.hostName).json"
        try BrowserSetup.write(firefoxHostPath, BrowserSetup.firefoxHost(bridge: bridge))
        written.append(firefoxHostPath)
        let policiesPath = under(firefoxPoliciesPath)
        let firefox: String
        if firefoxUnsigned {
            written += try writeFirefoxPolicies(
                policiesPath, firefoxPolicies(existing: policiesPath, xpi: fileURL(archivePath)), root: root)
            firefox = "installed by policy where Firefox accepts unsigned add-ons (ESR, developer editions); not in release Firefox"
        } else {
            written += try withdrawFirefoxCompanion(policiesPath, root: root)
            firefox =
                "not installed by policy: Firefox installs only signed add-ons (ESR: --firefox-unsigned turns its check off); "
                + "add it by hand from the .xpi where Firefox allows"
        }
        return Outcome(written: written, chromiumID: id, firefox: firefox)
    }

    /// Firefox reads one policies.json: the companion's entries are merged into what is there, the
    /// administrator's own kept (`withdrawFirefoxCompanion` takes them out).
    ///
    /// Release Firefox installs only add-ons Mozilla signed; ESR and developer editions accept an
    /// unsigned one with `xpinstall.signatures.required` off, which their `Preferences` policy may
    /// set (locked). That turns the check off for every add-on, so it is asked for, not assumed.
    static func firefoxPolicies(existing path: String, xpi: String) -> [String: Any] {
        var document = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))) as? [String: Any] ?? [:]
        var policies = document["policies"] as? [String: Any] ?? [:]
        var settings = policies["ExtensionSettings"] as? [String: Any] ?? [:]
        var preferences = policies["Preferences"] as? [String: Any] ?? [:]
        let signatures = signaturePreference
        settings[BrowserSetup.firefoxID] = ["installation_mode": "force_installed", "private_browsing": true, "install_url": xpi]
        preferences[signatures] = signatureOff
        policies["ExtensionSettings"] = settings.isEmpty ? nil : settings
        policies["Preferences"] = preferences.isEmpty ? nil : preferences
        document["policies"] = policies
        return document
    }

    /// Takes the companion's entries out of Firefox's policies, as uninstall does: its add-on and
    /// the signature check an earlier `--firefox-unsigned` turned off, which must not stay off
    /// for every add-on once the companion is no longer installed there. The administrator's file
    /// comes back byte for byte where that is what is left; a file that is not JSON is left alone.
    static func withdrawFirefoxCompanion(_ path: String, root: String) throws -> [String] {
        let original = FileManager.default.contents(atPath: firefoxOriginalPath(root: root))
        guard let plan = try? MachineUninstall.firefoxPlan(path, original: original) else { return [] }
        switch plan {
        case .untouched: return []
        case .delete: return try MachineUninstall.remove(path) ? [path] : []
        case .restore(let data): try writeData(path, data, mode: 0o644)
        case .rewrite(let document): try BrowserSetup.write(path, document)
        }
        return [path]
    }

    /// Writes Firefox's policies only where they change (the administrator's file is otherwise left
    /// as it is), saving the file as it was before the first change. Returns the paths written.
    static func writeFirefoxPolicies(_ path: String, _ document: [String: Any], root: String) throws -> [String] {
        let existing = FileManager.default.contents(atPath: path)
        if let existing, let current = (try? JSONSerialization.jsonObject(with: existing)) as? [String: Any],
            MachineUninstall.canonical(current) == MachineUninstall.canonical(document)
        {
            return []
        }
        var written: [String] = []
        let original = firefoxOriginalPath(root: root)
        if let existing, !FileManager.default.fileExists(atPath: original) {
            try makeDirectory((original as NSString).deletingLastPathComponent, mode: 0o750)
            try writeData(original, existing, mode: 0o600)
            written.append(original)
        }
        try BrowserSetup.write(path, document)
        return written + [path]
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
