import Glibc
import LockCore
import LockPlatform

/// What the exec guard denies, fixed at one apply and never changed afterwards: the guard's
/// answer thread reads it without coordination beyond taking the reference, and `apply`
/// replaces it whole.
public final class ExecRules: Sendable {
    /// The app a denial is attributed to.
    public struct Rule: Sendable, Equatable {
        /// App id.
        public let appID: String
        /// Display name.
        public let appName: String
    }

    /// One file that is blocked, as found on disk at apply time.
    public struct BlockedFile: Sendable, Equatable {
        /// A path to it (for inode marks and messages).
        public let path: String
        /// Its identity.
        public let identity: FileIdentity
        /// Index into `rules`.
        public let rule: Int
        /// True for a `#!` script or any non-ELF file (run through an interpreter).
        public let isScript: Bool
    }

    /// One per app, in the order `resolve` was given them; the other tables refer to these
    /// by index.
    public let rules: [Rule]
    /// Blocked files by identity (several paths may lead to one; the first is kept).
    public let blocked: [FileIdentity: BlockedFile]
    /// Strict rules: content digests of blocked programs, by file size (a copy has the same
    /// size, so only files of these sizes are ever hashed).
    public let digestsBySize: [Int64: [ContentDigest: Int]]
    /// Filesystems to watch (device → a path on it): those holding blocked files, plus the
    /// user-writable ones when a strict rule exists (copies land there).
    public let filesystems: [UInt64: String]
    /// What was left out and why (`/usr/bin/python3: an interpreter is never blocked`).
    public let notes: [String]

    /// True when nothing is denied.
    public var isEmpty: Bool { blocked.isEmpty && digestsBySize.isEmpty }
    /// True when some rule matches by content.
    public var matchesContent: Bool { !digestsBySize.isEmpty }

    /// Nothing blocked.
    public static let none = ExecRules(rules: [], blocked: [:], digestsBySize: [:], filesystems: [:], notes: [])

    init(
        rules: [Rule], blocked: [FileIdentity: BlockedFile], digestsBySize: [Int64: [ContentDigest: Int]],
        filesystems: [UInt64: String], notes: [String]
    ) {
        self.rules = rules
        self.blocked = blocked
        self.digestsBySize = digestsBySize
        self.filesystems = filesystems
        self.notes = notes
    }

    /// True when `other` makes exactly the same decisions and watches the same filesystems:
    /// putting it in force would only throw away the allow cache.
    public func decidesLike(_ other: ExecRules) -> Bool {
        rules == other.rules && blocked == other.blocked && digestsBySize == other.digestsBySize
            && filesystems == other.filesystems
    }

    /// Resolves the apps of a desired state on disk now: each executable path to its identity
    /// (missing ones are noted and skipped), digests for strict apps, and the filesystems to
    /// watch. Interpreters and launchers are refused here too, whatever the catalog said:
    /// denying `python3` or `flatpak` to everyone is never what a block means.
    ///
    /// - Parameter userWritable: paths whose filesystems users can write to (`/home`, `/tmp`,
    ///   …): watched as well when an app is strict, because that is where copies appear.
    public static func resolve(_ apps: [BlockedApp], hasher: ContentHasher, userWritable: [String]) -> ExecRules {
        var rules: [Rule] = []
        var blocked: [FileIdentity: BlockedFile] = [:]
        var digests: [Int64: [ContentDigest: Int]] = [:]
        var filesystems: [UInt64: String] = [:]
        var notes: [String] = []
        var anyStrict = false
        for app in apps {
            let index = rules.count
            rules.append(Rule(appID: app.id, appName: app.name))
            for path in app.executables {
                guard path.hasPrefix("/") else {
                    notes.append("\(app.id): \(path) is not an absolute path")
                    continue
                }
                guard let file = ExecutableFile.inspect(path, requireExecutable: false) else {
                    notes.append("\(app.id): \(path) not found")
                    continue
                }
                guard ProgramNames.mayBeBlocked(file.resolved), ProgramNames.mayBeBlocked(path) else {
                    notes.append("\(app.id): \(path) is an interpreter or launcher and is never blocked")
                    continue
                }
                if blocked[file.identity] == nil {
                    let isScript = file.kind != .elf
                    blocked[file.identity] = BlockedFile(path: file.resolved, identity: file.identity, rule: index, isScript: isScript)
                }
                filesystems[file.identity.device] = filesystems[file.identity.device] ?? file.resolved
                if app.strict {
                    anyStrict = true
                    if let (digest, key) = hasher.digest(path: file.resolved) {
                        digests[key.size, default: [:]][digest] = digests[key.size]?[digest] ?? index
                    } else {
                        notes.append("\(app.id): \(path) could not be read to match copies")
                    }
                }
            }
        }
        if anyStrict {
            for path in userWritable {
                var status = stat()
                guard stat(path, &status) == 0 else { continue }
                let device = UInt64(status.st_dev)
                if filesystems[device] == nil { filesystems[device] = path }
            }
        }
        return ExecRules(rules: rules, blocked: blocked, digestsBySize: digests, filesystems: filesystems, notes: notes)
    }

    /// The rule a running or starting program matches by identity, then (strict) by content
    /// of the file open on `fd` (hashed only when its size is that of a blocked program).
    func match(identity: FileIdentity, status: stat, fd: Int32?, hasher: ContentHasher) -> (rule: Int, byContent: Bool)? {
        if let file = blocked[identity] { return (file.rule, false) }
        guard let candidates = digestsBySize[Int64(status.st_size)] else { return nil }
        let key = ContentHasher.Key(status)
        let digest: ContentDigest?
        if let known = hasher.cached(key) {
            digest = known
        } else if let fd {
            digest = hasher.digest(fd: fd, key: key, deadline: .now + .seconds(5))
        } else {
            digest = nil
        }
        return digest.flatMap { candidates[$0] }.map { ($0, true) }
    }
}
