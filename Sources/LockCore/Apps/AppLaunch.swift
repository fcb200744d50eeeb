/// How a desktop entry's command line starts its application, seen past `env VAR=value`.
public enum AppLaunch: Sendable, Equatable {
    /// A program run directly; `arguments[0]` is the program (a name on PATH or a path).
    case program(arguments: [String])
    /// `flatpak run [options] APP-ID`: the application id and the `--command` if one is given
    /// (without it, the command comes from the app's metadata).
    case flatpak(appID: String, command: String?)
    /// `/snap/bin/NAME[.APP]` or `snap run NAME[.APP]`.
    case snap(name: String, app: String?)

    /// `flatpak run` options that take their value as the next argument when written without `=`.
    static let flatpakValueOptions: Set<String> = [
        "--arch", "--branch", "--command", "--cwd", "--runtime", "--runtime-version", "--commit", "--runtime-commit",
        "--parent-pid", "--app-path", "--usr-path", "--instance-id-fd", "--env", "--unset-env", "--filesystem",
        "--nofilesystem", "--socket", "--nosocket", "--share", "--unshare", "--device", "--nodevice", "--allow",
        "--disallow", "--talk-name", "--own-name", "--system-talk-name", "--system-own-name", "--add-policy",
        "--remove-policy", "--persist", "--env-fd", "--log-session-bus", "--no-talk-name", "--no-own-name",
    ]

    /// Recognises the launch in split arguments (as `DesktopExec` gives them).
    public init(_ arguments: [String]) {
        var rest = ArraySlice(arguments)
        // `env [-i] [-u NAME] [VAR=value…] program …`
        while let first = rest.first, ProgramNames.baseName(first) == "env" {
            rest = rest.dropFirst()
            while let argument = rest.first {
                if argument == "-u" || argument == "-C" || argument == "-S" || argument == "--unset" || argument == "--chdir" {
                    rest = rest.dropFirst(2)
                } else if argument.hasPrefix("-") || (argument.contains("=") && !argument.hasPrefix("/")) {
                    rest = rest.dropFirst()
                } else {
                    break
                }
            }
        }
        guard let program = rest.first else {
            self = .program(arguments: arguments)
            return
        }
        let base = ProgramNames.baseName(program)
        if base == "flatpak", rest.dropFirst().first == "run" {
            var command: String?
            var options = rest.dropFirst(2)
            while let option = options.first, option.hasPrefix("-") {
                options = options.dropFirst()
                if option.hasPrefix("--command=") {
                    command = String(option.dropFirst("--command=".count))
                } else if option == "--command" {
                    command = options.first
                    options = options.dropFirst()
                } else if Self.flatpakValueOptions.contains(option) {
                    options = options.dropFirst()
                }
            }
            if let appID = options.first, FlatpakID.isValid(appID) {
                self = .flatpak(appID: appID, command: command.flatMap { $0.isEmpty ? nil : $0 })
                return
            }
        }
        if program.hasPrefix("/snap/bin/") || (base == "snap" && rest.dropFirst().first == "run") {
            let qualified = program.hasPrefix("/snap/bin/") ? base : (rest.dropFirst(2).first { !$0.hasPrefix("-") } ?? "")
            let parts = qualified.split(separator: ".", maxSplits: 1).map(String.init)
            if let name = parts.first, !name.isEmpty {
                self = .snap(name: name, app: parts.count > 1 ? parts[1] : nil)
                return
            }
        }
        self = .program(arguments: Array(rest))
    }
}

/// Flatpak application ids: reverse-DNS names (`org.telegram.desktop`), at least three
/// elements, each of `A-Za-z0-9_-` not starting with a digit, at most 255 characters.
public enum FlatpakID {
    /// True when `id` has the shape of an application id.
    public static func isValid(_ id: String) -> Bool {
        guard id.utf8.count <= 255 else { return false }
        let elements = id.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, !first.isNumber else { return false }
            return element.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        }
    }
}
