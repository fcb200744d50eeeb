import Foundation

/// The UI's static files (`web/ui/`: HTML, CSS, ES modules, SVG), read into memory at start:
/// they are small, and a table of known paths leaves no file name from a request to resolve.
public struct Assets: Sendable {
    public struct File: Sendable {
        public var bytes: [UInt8]
        public var contentType: String
    }

    public let directory: String
    private let files: [String: File]

    /// Reads every file under `directory`; fails when there is no `index.html`.
    public init(directory: String) throws {
        self.directory = directory
        var files: [String: File] = [:]
        let base = URL(fileURLWithPath: directory).standardized
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw AssetError("cannot read the UI's files in \(directory)")
        }
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let type = Self.contentTypes[url.pathExtension], let data = FileManager.default.contents(atPath: url.path)
            else { continue }
            let relative = String(url.standardized.path.dropFirst(base.path.count))
            files[relative] = File(bytes: Array(data), contentType: type)
        }
        guard files["/index.html"] != nil else { throw AssetError("\(directory) has no index.html: is this the UI's folder?") }
        self.files = files
    }

    /// The file for a request path (`/` is `index.html`).
    public func file(for path: String) -> File? {
        files[path == "/" ? "/index.html" : path]
    }

    /// Total bytes, for the benchmark's page weight.
    public var paths: [String] { files.keys.sorted() }

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "json": "application/json", "webmanifest": "application/manifest+json",
    ]

    /// Where the files are: `explicit` (`--assets`), `$SIMPLYLOCK_UI_DIR`, next to an installed
    /// binary (`PREFIX/bin/../share/simplylock/ui`), the source tree of a development build
    /// (`.build/…/debug/../../../web/ui`), then the system locations.
    public static func locate(explicit: String?) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = ProcessInfo.processInfo.environment["SIMPLYLOCK_UI_DIR"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        let binDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            binDirectory.appendingPathComponent("../share/simplylock/ui").standardized.path,
            binDirectory.appendingPathComponent("../../../web/ui").standardized.path,
            "/usr/local/share/simplylock/ui",
            "/usr/share/simplylock/ui",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") } ?? "/usr/share/simplylock/ui"
    }
}

/// A problem with the UI's files, for the command's error message.
public struct AssetError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
