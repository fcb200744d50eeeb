/// Why a name given for an app does not name one.
public enum AppLookupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No app, flatpak, snap or file by that name; `suggestions` are the closest known names.
    case unknown(name: String, suggestions: [String])
    /// A path that exists but is not an executable regular file.
    case notExecutable(path: String)
    /// An app found, but none of its programs could be located on disk.
    case noExecutables(id: String)

    public var description: String {
        switch self {
        case .unknown(let name, let suggestions):
            let hint = suggestions.isEmpty ? "" : "; did you mean \(suggestions.joined(separator: ", "))?"
            return "unknown app \"\(name)\" (not a desktop id, flatpak id, snap name or executable path)\(hint)"
        case .notExecutable(let path):
            return "\(path) is not an executable file"
        case .noExecutables(let id):
            return "app \"\(id)\" is installed but none of its programs was found on disk"
        }
    }
}
