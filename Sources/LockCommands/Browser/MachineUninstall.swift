import Foundation
import LockCore

/// `lockctl browser uninstall`: takes out what `browser install` wrote, and nothing else.
///
/// Firefox's policies.json is shared with the administrator: only the companion's entries are
/// taken out, and where what is left is what was there before the first install, the file
/// saved then is put back byte for byte. The signing key stays unless asked: the companion's id
/// in Chromium browsers is derived from it, so a new key makes a new extension.
enum MachineUninstall {
    struct Outcome: Encodable {
        var removed: [String]
        var kept: [String]
    }

    static func run(root: String, forgetKey: Bool) throws -> Outcome {
        func under(_ path: String) -> String { Paths.join(root, path) }
        // Firefox's file is read first: a file that is not JSON stops the uninstall before
        // anything is removed.
        let policiesPath = under(MachineInstall.firefoxPoliciesPath)
        let originalPath = MachineInstall.firefoxOriginalPath(root: root)
        let firefox = try firefoxPlan(policiesPath, original: FileManager.default.contents(atPath: originalPath))
        var removed: [String] = []
        var kept: [String] = []
        var files = BrowserSetup.chromiumFamily.flatMap {
            [under($0.hosts) + "/\(BrowserSetup.hostName).json", under($0.policies) + "/simplylock.json"]
        }
        files.append(under(MachineInstall.firefoxHostDirectory) + "/\(BrowserSetup.hostName).json")
        let packDirectory = MachineInstall.packDirectory(root: root)
        files += [packDirectory + "/simplylock-companion.crx", packDirectory + "/updates.xml"]
        for path in Set(files).sorted() where try remove(path) { removed.append(path) }
        if rmdir(packDirectory) == 0 { removed.append(packDirectory) }
        switch firefox {
        case .untouched: break
        case .delete: if try remove(policiesPath) { removed.append(policiesPath) }
        case .restore(let data):
            try MachineInstall.writeData(policiesPath, data, mode: 0o644)
            removed.append(policiesPath + " (the companion's entries; the file as it was before restored)")
        case .rewrite(let document):
            try BrowserSetup.write(policiesPath, document)
            removed.append(policiesPath + " (the companion's entries; the other policies kept)")
        }
        if try remove(originalPath) { removed.append(originalPath) }
        let key = MachineInstall.keyPath(root: root)
        if forgetKey {
            if try remove(key) { removed.append(key) }
        } else if FileManager.default.fileExists(atPath: key) {
            kept.append(key)
        }
        return Outcome(removed: removed, kept: kept)
    }

    enum FirefoxPlan {
        case untouched
        case delete
        case restore(Data)
        case rewrite([String: Any])
    }

    /// What to do with Firefox's policies.json: nothing if the companion has no entry in it;
    /// otherwise without them, the saved original if that is what is left.
    static func firefoxPlan(_ path: String, original: Data?) throws -> FirefoxPlan {
        guard let data = FileManager.default.contents(atPath: path) else { return .untouched }
        guard let document = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CommandFailure(
                code: ExitCodes.failure, "\(path) is not a JSON object; nothing was removed",
                hint: "fix it (or move it away) and run browser uninstall again")
        }
        let pruned = withoutCompanion(document)
        if canonical(pruned) == canonical(document) { return .untouched }
        if let original, let saved = (try? JSONSerialization.jsonObject(with: original)) as? [String: Any],
            canonical(withoutCompanion(saved)) == canonical(pruned)
        {
            return .restore(original)
        }
        return pruned.isEmpty ? .delete : .rewrite(pruned)
    }

    /// The document without the companion's add-on entry and the signature preference exactly as
    /// install sets it (an administrator who set it so had it in the saved original, restored then).
    static func withoutCompanion(_ document: [String: Any]) -> [String: Any] {
        var document = document
        guard var policies = document["policies"] as? [String: Any] else { return document }
        if var settings = policies["ExtensionSettings"] as? [String: Any] {
            settings[BrowserSetup.firefoxID] = nil
            policies["ExtensionSettings"] = settings.isEmpty ? nil : settings
        }
        if var preferences = policies["Preferences"] as? [String: Any],
            let signature = preferences[MachineInstall.signaturePreference] as? [String: Any],
            canonical(signature) == canonical(MachineInstall.signatureOff)
        {
            preferences[MachineInstall.signaturePreference] = nil
            policies["Preferences"] = preferences.isEmpty ? nil : preferences
        }
        document["policies"] = policies.isEmpty ? nil : policies
        return document
    }

    /// The same JSON in one spelling, to compare documents.
    static func canonical(_ object: [String: Any]) -> Data? {
        try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// Whether there was a file to remove.
    static func remove(_ path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw CommandFailure(code: ExitCodes.failure, "cannot remove \(path): \(String(cString: strerror(errno)))")
    }
}
