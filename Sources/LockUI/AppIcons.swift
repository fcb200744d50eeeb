import Foundation
import LockClient
import Synchronization

/// The icons of installed apps, for the profile editor's picker: the app is looked up by id
/// through the daemon (`GET /v1/apps` names its desktop entries), its entry's `Icon=` is read,
/// and the icon found in the hicolor theme or pixmaps beside the entry's data directory. The
/// page names an app, never a file, so no request can read any other file.
final class AppIcons: Sendable {
    private let socketPath: String
    /// The apps' desktop entries by id, kept for a while: a picker asks for every icon at once.
    private let entries = Mutex<(at: ContinuousClock.Instant, byID: [String: [String]])?>(nil)
    static let keep: Duration = .seconds(30)
    static let sizes = ["scalable", "48x48", "64x64", "128x128", "256x256", "96x96", "32x32", "512x512"]
    static let largest = 1 << 20

    init(socketPath: String) { self.socketPath = socketPath }

    /// The icon of the app with this id, or nil (no such app, no icon, or one in a format the page cannot show).
    func icon(for id: String) async -> Assets.File? {
        guard let desktopFiles = await desktopFiles(of: id) else { return nil }
        for desktop in desktopFiles {
            guard let name = Self.iconKey(inDesktopFile: desktop), let file = Self.resolve(name, near: desktop) else { continue }
            return file
        }
        return nil
    }

    private func desktopFiles(of id: String) async -> [String]? {
        let now = ContinuousClock.now
        if let cached = entries.withLock({ $0 }), now - cached.at < Self.keep { return cached.byID[id] }
        guard let list = try? await LockClient(socketPath: socketPath).apps() else { return nil }
        let byID = Dictionary(list.apps.map { ($0.id, $0.desktopFiles) }, uniquingKeysWith: { first, _ in first })
        entries.withLock { $0 = (now, byID) }
        return byID[id]
    }

    /// `Icon=` of the `[Desktop Entry]` group.
    static func iconKey(inDesktopFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= largest else { return nil }
        var inEntry = false
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("[") {
                inEntry = line == "[Desktop Entry]"
            } else if inEntry, line.hasPrefix("Icon=") {
                let value = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// An absolute icon path as given, or a name looked up in the icon theme and pixmaps of
    /// the entry's own data directory (`X/share` for `X/share/applications/a.desktop`), then the system's.
    static func resolve(_ icon: String, near desktop: String) -> Assets.File? {
        if icon.hasPrefix("/") { return load(icon) }
        guard !icon.contains("/"), !icon.hasPrefix(".") else { return nil }
        let own = URL(fileURLWithPath: desktop).deletingLastPathComponent().deletingLastPathComponent().path
        for base in [own, "/usr/local/share", "/usr/share"] {
            for size in sizes {
                for type in ["svg", "png"] {
                    if let file = load("\(base)/icons/hicolor/\(size)/apps/\(icon).\(type)") { return file }
                }
            }
            for type in ["svg", "png"] {
                if let file = load("\(base)/pixmaps/\(icon).\(type)") { return file }
            }
        }
        return nil
    }

    static func load(_ path: String) -> Assets.File? {
        let type: String
        switch URL(fileURLWithPath: path).pathExtension {
        case "svg": type = "image/svg+xml"
        case "png": type = "image/png"
        default: return nil
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= largest, let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return Assets.File(bytes: Array(data), contentType: type)
    }
}
