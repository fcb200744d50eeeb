import Glibc
import LockCore

/// The applications installed on the machine, read from `.desktop` entries in the XDG data
/// directories (system-wide, flatpak and snap exports, and each real user's own), with their
/// programs resolved on disk: `Exec`/`TryExec` looked up on PATH and through symbolic links,
/// launchers (`env`, `flatpak run`, `/snap/bin/…`) and interpreters (`python3 game.py`) looked
/// past so that the app, never `python3` or `flatpak`, is what gets blocked.
///
/// A scan never fails as a whole: unreadable or malformed entries are skipped and listed in
/// `problems` with the file and the reason.
public struct AppCatalog: Sendable {
    /// Where to look. Every path is injectable, so tests scan a directory of their own.
    public struct Roots: Sendable {
        /// Data directories, highest precedence first; each may hold `applications/`.
        public var dataDirectories: [String]
        /// Flatpak installations (`app/ID/current/active/files` inside each).
        public var flatpakInstallations: [String]
        /// Where snaps are mounted (`NAME/current`).
        public var snapDirectory: String
        /// Directories searched for program names, in order (PATH).
        public var searchPath: [String]
        /// Home directories whose `.local/share` (and per-user flatpak installation) count too;
        /// nil reads the real users from `passwd`.
        public var homes: [String]?
        /// The passwd-format file listing users (when `homes` is nil).
        public var passwd: String

        /// The machine's real locations.
        public init(
            dataDirectories: [String] = [
                "/usr/local/share", "/usr/share", "/var/lib/flatpak/exports/share",
                "/var/lib/snapd/desktop",
            ],
            flatpakInstallations: [String] = ["/var/lib/flatpak"], snapDirectory: String = "/snap",
            searchPath: [String] = [
                "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
                "/usr/games", "/usr/local/games", "/snap/bin",
            ],
            homes: [String]? = nil, passwd: String = "/etc/passwd"
        ) {
            self.dataDirectories = dataDirectories
            self.flatpakInstallations = flatpakInstallations
            self.snapDirectory = snapDirectory
            self.searchPath = searchPath
            self.homes = homes
            self.passwd = passwd
        }
    }

    /// Apps by id, sorted.
    public private(set) var apps: [InstalledApp]
    /// Entries that were skipped, as `path: reason`.
    public private(set) var problems: [String]
    /// Where it looked.
    public let roots: Roots

    /// The most entries read from one directory tree: a guard against a hostile or broken tree.
    static let maximumEntries = 20_000
    /// The most executables taken from one flatpak's `bin` directory.
    static let maximumFlatpakExecutables = 256

    /// Scans now.
    public init(roots: Roots = Roots()) {
        self.roots = roots
        var scanner = Scanner(roots: roots)
        scanner.scan()
        apps = scanner.apps.values.sorted { $0.id < $1.id }
        problems = scanner.problems
    }

    /// The app `name` names: a desktop id (`steam`), a flatpak id (`org.telegram.desktop`),
    /// a snap name, a display name (ignoring case, when only one app has it), or the path of an
    /// executable. Installed flatpaks and snaps without a desktop entry are found too.
    ///
    /// - Throws: `AppLookupError.unknown` with the closest known names.
    public func lookup(_ name: String) throws(AppLookupError) -> InstalledApp {
        if let app = apps.first(where: { $0.id == name }) { return app }
        if name.hasPrefix("/") {
            if let app = apps.first(where: { $0.executables.contains { $0.path == name || $0.resolved == name } }) { return app }
            guard let file = ExecutableFile.inspect(name) else {
                if ExecutableFile.inspect(name, requireExecutable: false) != nil { throw .notExecutable(path: name) }
                throw .unknown(name: name, suggestions: [])
            }
            return InstalledApp(id: name, name: ProgramNames.baseName(name), executables: [file])
        }
        if let app = apps.first(where: { $0.flatpakID == name }) { return app }
        let snapApps = apps.filter { $0.snapName == name }
        if let first = snapApps.first {
            return snapApps.dropFirst().reduce(
                InstalledApp(
                    id: name, name: first.name, categories: first.categories, desktopFiles: first.desktopFiles, snapName: name,
                    noDisplay: first.noDisplay, executables: first.executables)
            ) { $0.merged(with: $1) }
        }
        let scanner = Scanner(roots: roots)
        if FlatpakID.isValid(name), let files = scanner.flatpakExecutables(appID: name, command: nil), !files.isEmpty {
            return InstalledApp(id: name, name: name, flatpakID: name, executables: files)
        }
        if Self.isPlainName(name), let files = scanner.snapExecutables(name: name), !files.isEmpty {
            return InstalledApp(id: name, name: name, snapName: name, executables: files)
        }
        let lowered = name.lowercased()
        let byID = apps.filter { $0.id.lowercased() == lowered }
        if byID.count == 1 { return byID[0] }
        let byName = apps.filter { $0.name.lowercased() == lowered }
        if byName.count == 1 { return byName[0] }
        throw .unknown(name: name, suggestions: suggestions(for: name))
    }

    /// Apps in `category` (or an additional category the specification ties to it).
    public func apps(in category: AppCategory) -> [InstalledApp] { apps.filter { $0.isIn(category) } }

    /// Known names closest to `name`: ids, flatpak ids, snap names and display names.
    public func suggestions(for name: String) -> [String] {
        var names: [String] = []
        for app in apps {
            names.append(app.id)
            if let flatpak = app.flatpakID { names.append(flatpak) }
            if let snap = app.snapName { names.append(snap) }
        }
        var found = ClosestMatches.find(name, among: names)
        if found.isEmpty {
            // A display name ("Steam") leads to the id that must be typed.
            let byName = Dictionary(apps.map { ($0.name, $0.id) }, uniquingKeysWith: { first, _ in first })
            found = ClosestMatches.find(name, among: byName.keys).compactMap { byName[$0] }
        }
        return found
    }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}

/// The work of one scan, kept out of `AppCatalog` so the catalog itself stays a plain value.
struct Scanner {
    let roots: Roots
    var apps: [String: InstalledApp] = [:]
    var problems: [String] = []
    typealias Roots = AppCatalog.Roots

    init(roots: Roots) { self.roots = roots }

    private var homes: [String] { roots.homes ?? SystemUsers.homes(passwd: roots.passwd) }

    mutating func scan() {
        var directories = roots.dataDirectories
        for home in homes {
            directories.append(home + "/.local/share")
            directories.append(home + "/.local/share/flatpak/exports/share")
        }
        for directory in directories {
            for (file, id) in desktopFiles(under: directory + "/applications") { read(file, id: id) }
        }
    }

    /// `(path, desktop id)` of the `.desktop` files under `applications` (subdirectories give
    /// ids with `-`, as the specification says: `kde4/foo.desktop` is `kde4-foo`).
    func desktopFiles(under applications: String) -> [(String, String)] {
        var found: [(String, String)] = []
        var pending: [(String, String)] = [(applications, "")]
        var visited = 0
        while let (directory, prefix) = pending.popLast(), visited < AppCatalog.maximumEntries {
            guard let handle = opendir(directory) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle), visited < AppCatalog.maximumEntries {
                visited += 1
                let name = DirectoryEntry.name(entry)
                if name.hasPrefix(".") { continue }
                let path = directory + "/" + name
                var status = stat()
                guard stat(path, &status) == 0 else { continue }
                if status.st_mode & S_IFMT == S_IFDIR {
                    if prefix.split(separator: "-").count < 4 { pending.append((path, prefix + name + "-")) }
                } else if status.st_mode & S_IFMT == S_IFREG, name.hasSuffix(".desktop"), name.count > 8 {
                    found.append((path, prefix + String(name.dropLast(8))))
                }
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    mutating func read(_ file: String, id: String) {
        let entry: DesktopEntry
        do {
            entry = try DesktopEntry(bytes: try readSmallFile(file, limit: DesktopEntry.maximumSize))
        } catch {
            problems.append("\(file): \(error)")
            return
        }
        guard entry.isApplication, !entry.hidden else { return }
        if let tryExec = entry.tryExec, resolveProgram(tryExec, workingDirectory: entry.workingDirectory) == nil {
            return  // not installed, as the specification says for a TryExec that is not found
        }
        var executables: [ExecutableFile] = []
        var flatpakID = entry.flatpakID
        var snapName = entry.snapInstanceName
        do {
            if let exec = try entry.parsedExec() {
                switch exec.launch {
                case .program(let arguments):
                    executables = programExecutables(arguments, workingDirectory: entry.workingDirectory, depth: 0)
                case .flatpak(let appID, let command):
                    flatpakID = flatpakID ?? appID
                    executables = flatpakExecutables(appID: flatpakID ?? appID, command: command) ?? []
                case .snap(let name, _):
                    snapName = snapName ?? name
                    executables = snapExecutables(name: snapName ?? name) ?? []
                }
            }
        } catch {
            problems.append("\(file): \(error)")
            return
        }
        if let tryExec = entry.tryExec, let file = resolveProgram(tryExec, workingDirectory: entry.workingDirectory),
            ProgramNames.mayBeBlocked(file.resolved), ProgramNames.mayBeBlocked(tryExec)
        {
            executables.append(file)
        }
        if let flatpakID, executables.isEmpty { executables = flatpakExecutables(appID: flatpakID, command: nil) ?? [] }
        let app = InstalledApp(
            id: id, name: entry.name ?? id, categories: entry.categories, desktopFiles: [file],
            flatpakID: flatpakID, snapName: snapName, noDisplay: entry.noDisplay, executables: executables)
        apps[id] = apps[id].map { $0.merged(with: app) } ?? app
    }

    /// The file a program name leads to: a path as given, or the first match on PATH.
    func resolveProgram(_ program: String, workingDirectory: String?) -> ExecutableFile? {
        if program.hasPrefix("/") { return ExecutableFile.inspect(program) }
        if program.contains("/") {
            guard let directory = workingDirectory, directory.hasPrefix("/") else { return nil }
            return ExecutableFile.inspect(directory + "/" + program)
        }
        for directory in roots.searchPath {
            if let file = ExecutableFile.inspect(directory + "/" + program) { return file }
        }
        return nil
    }

    /// What a direct command line runs, looking past launchers and interpreters.
    func programExecutables(_ arguments: [String], workingDirectory: String?, depth: Int) -> [ExecutableFile] {
        guard depth < 4, let program = arguments.first, let file = resolveProgram(program, workingDirectory: workingDirectory) else {
            return []
        }
        let rest = arguments.dropFirst()
        if ProgramNames.isInterpreter(program) || ProgramNames.isInterpreter(file.resolved) {
            // `sh -c "exec game --x"`: the command string is a command line of its own.
            if let flag = rest.firstIndex(of: "-c"), flag + 1 < arguments.count,
                let inner = try? DesktopExec(parsing: arguments[flag + 1].replacingPercent())
            {
                return programExecutables(inner.arguments, workingDirectory: workingDirectory, depth: depth + 1)
            }
            // `python3 /opt/game/game.py`: the script is the app, not python3.
            for argument in rest where !argument.hasPrefix("-") {
                let path = argument.hasPrefix("/") ? argument : workingDirectory.map { $0 + "/" + argument }
                if let path, let script = ExecutableFile.inspect(path, requireExecutable: false) { return [script] }
            }
            return []
        }
        if ProgramNames.isLauncher(program) || ProgramNames.isLauncher(file.resolved) {
            for index in rest.indices where !arguments[index].hasPrefix("-") && !arguments[index].contains("=") {
                let found = programExecutables(Array(arguments[index...]), workingDirectory: workingDirectory, depth: depth + 1)
                if !found.isEmpty { return found }
            }
            // A terminal launched on its own is an app in its own right.
            return ProgramNames.mayBeBlocked(file.resolved) && ProgramNames.mayBeBlocked(program) ? [file] : []
        }
        return [file]
    }

    /// The programs of an installed flatpak: its command (from `--command` or the app's
    /// metadata) and every executable in its `bin` directory. Nil when it is not installed.
    func flatpakExecutables(appID: String, command: String?) -> [ExecutableFile]? {
        guard FlatpakID.isValid(appID) else { return nil }
        var installations = roots.flatpakInstallations
        for home in homes { installations.append(home + "/.local/share/flatpak") }
        var found: [ExecutableFile] = []
        var installed = false
        for installation in installations {
            let active = installation + "/app/" + appID + "/current/active"
            let files = active + "/files"
            guard FileIdentity(path: files) != nil else { continue }
            installed = true
            var command = command
            if command == nil, let bytes = try? readSmallFile(active + "/metadata", limit: DesktopEntry.maximumSize),
                let metadata = try? DesktopEntry(bytes: bytes, requireMainGroup: false)
            {
                command = metadata.value("command", in: "Application")
            }
            if let command, !command.isEmpty {
                let path =
                    command.hasPrefix("/app/")
                    ? files + command.dropFirst(4)
                    : command.hasPrefix("/") ? files + command : files + "/bin/" + command
                if let file = ExecutableFile.inspect(path) { found.append(file) }
            }
            found += executables(in: files + "/bin", limit: AppCatalog.maximumFlatpakExecutables)
        }
        return installed ? found : nil
    }

    /// The programs of an installed snap: the `command:` of each app in `meta/snap.yaml`, or
    /// everything in its `bin` directories when that cannot be read. Never `/usr/bin/snap`,
    /// which `/snap/bin/NAME` links to. Nil when it is not installed.
    func snapExecutables(name: String) -> [ExecutableFile]? {
        let current = roots.snapDirectory + "/" + name + "/current"
        guard FileIdentity(path: current) != nil else { return nil }
        var found: [ExecutableFile] = []
        if let bytes = try? readSmallFile(current + "/meta/snap.yaml", limit: 1 << 20) {
            for command in Self.snapCommands(String(decoding: bytes, as: UTF8.self)) {
                var relative = Substring(command)
                for prefix in ["$SNAP/", "${SNAP}/"] where relative.hasPrefix(prefix) { relative = relative.dropFirst(prefix.count) }
                if let file = ExecutableFile.inspect(current + "/" + relative) { found.append(file) }
            }
        }
        if found.isEmpty {
            for directory in ["/bin", "/usr/bin"] { found += executables(in: current + directory, limit: 64) }
        }
        return found
    }

    /// The first word of each `command:` under the top-level `apps:` key of a snap.yaml (a
    /// small reading of YAML that suffices for the generated files snapd writes).
    static func snapCommands(_ yaml: String) -> [String] {
        var commands: [String] = []
        var inApps = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: true) {
            if let first = line.first, first != " ", first != "\t", first != "#" {
                inApps = line.hasPrefix("apps:")
                continue
            }
            guard inApps else { continue }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("command:") else { continue }
            var value = trimmed.dropFirst("command:".count).drop { $0 == " " }
            if let quote = value.first, quote == "\"" || quote == "'" {
                value = value.dropFirst().prefix { $0 != quote }
            }
            if let word = value.split(separator: " ").first { commands.append(String(word)) }
        }
        return commands
    }

    /// Executable regular files directly inside `directory`, at most `limit`, sorted by path.
    func executables(in directory: String, limit: Int) -> [ExecutableFile] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle), names.count < limit * 4 {
            let name = DirectoryEntry.name(entry)
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted().lazy.compactMap { ExecutableFile.inspect(directory + "/" + $0) }
            .filter { ProgramNames.mayBeBlocked($0.resolved) }.prefix(limit).map { $0 }
    }
}

extension String {
    /// `sh -c` strings are shell text, not `Exec` values: a `%` in them is literal.
    fileprivate func replacingPercent() -> String {
        var result = ""
        for character in self {
            if character == "%" { result += "%%" } else { result.append(character) }
        }
        return result
    }
}
