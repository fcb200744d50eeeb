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
    /// Strict rules: exact content digests of blocked programs, by file size.
    public let digestsBySize: [Int64: [ContentDigest: Int]]
    /// Strict rules: blocked programs large enough to be matched by similarity (rule index and
    /// signature), for copies with bytes appended, changed or inserted.
    public let similar: [SimilarProgram]
    /// Files at least this large are compared by similarity (half the smallest of `similar`: a
    /// copy that lost half its chunks is no longer matched anyway).
    public let minimumSimilarSize: Int64?
    /// Filesystems to watch (device → a path on it): those holding blocked files, plus the
    /// user-writable ones when a strict rule exists (copies land there).
    public let filesystems: [UInt64: String]
    /// What was left out and why (`/usr/bin/python3: an interpreter is never blocked`).
    public let notes: [String]
    /// Apps whose launches allowances count (`CountedApp`), in the order `resolve` was given them.
    public let countedApps: [CountedApp]
    /// Their programs by identity (index into `countedApps`); a blocked file is never here.
    public let counted: [FileIdentity: Int]

    /// One blocked program matched by similarity.
    public struct SimilarProgram: Sendable, Equatable {
        /// Index into `rules`.
        public let rule: Int
        /// Its content.
        public let signature: ContentSignature
    }

    /// True when nothing is denied.
    public var isEmpty: Bool { blocked.isEmpty && digestsBySize.isEmpty }
    /// True when some rule matches by content (a strict block): what cannot be checked in time
    /// is refused rather than allowed.
    public var matchesContent: Bool { !digestsBySize.isEmpty }

    /// True when some app's launches are counted.
    public var countsLaunches: Bool { !counted.isEmpty }

    /// The identities of the programs of counted app `index`.
    public func countedIdentities(_ index: Int) -> Set<FileIdentity> { Set(counted.filter { $0.value == index }.keys) }

    /// Nothing blocked.
    public static let none = ExecRules(rules: [], blocked: [:], digestsBySize: [:], similar: [], filesystems: [:], notes: [])

    init(
        rules: [Rule], blocked: [FileIdentity: BlockedFile], digestsBySize: [Int64: [ContentDigest: Int]],
        similar: [SimilarProgram], filesystems: [UInt64: String], notes: [String], countedApps: [CountedApp] = [],
        counted: [FileIdentity: Int] = [:]
    ) {
        self.countedApps = countedApps
        self.counted = counted
        self.rules = rules
        self.blocked = blocked
        self.digestsBySize = digestsBySize
        self.similar = similar
        self.minimumSimilarSize = similar.map { $0.signature.size / 2 }.min()
        self.filesystems = filesystems
        self.notes = notes
    }

    /// True for a file an ordinary user may have made or changed: not owned by root, or
    /// writable by group or others. Only these are compared by content. A file root owns and
    /// alone may write was put there by root (a package, the administrator), and comparing it
    /// would make a block machine-wide: a blocked program whose bytes equal (or resemble) a
    /// system binary's would block that system binary for everyone.
    public static func userControlled(_ status: stat) -> Bool {
        status.st_uid != 0 || status.st_mode & (S_IWGRP | S_IWOTH) != 0
    }

    /// True when the program `exe` (a `/proc/PID/exe`) may run a blocked file without exec: an
    /// interpreter or the dynamic loader by name, any program an ordinary user may have made or
    /// changed, or a loader or interpreter recognised by content (`ProgramRunners`: a copy root
    /// put under another name). The second catches a renamed copy of `ld-linux-x86-64.so.2`,
    /// `python3` or `dash` in a home directory by what it is rather than what it is called; a
    /// user's own program opening a blocked one during a block is refused too, which is the point.
    ///
    /// A blocked program counts too, and is never opened to find out: the guard's answer
    /// thread opening a file with a permission mark would wait for itself.
    public func mayRunOthers(exe: String, runners: ProgramRunners = .machine) -> Bool {
        var status = stat()
        let found = stat(exe, &status) == 0
        if found, Self.userControlled(status) || blocked[FileIdentity(status)] != nil { return true }
        if let program = FanotifyExecGuard.readLink(exe), ProgramNames.isInterpreter(program) { return true }
        return found && runners.recognises(exe, status: status)
    }

    /// True when the file with this status must be read before its exec is decided (a strict
    /// block, a user-controlled file, and a size a copy of a blocked program can have).
    public func needsContentCheck(_ status: stat) -> Bool {
        guard matchesContent, Self.userControlled(status) else { return false }
        let size = Int64(status.st_size)
        if digestsBySize[size] != nil { return true }
        if let minimumSimilarSize, size >= minimumSimilarSize { return true }
        return false
    }

    /// The rule a file with this content is a copy of, exact or similar.
    public func rule(matching signature: ContentSignature) -> Int? {
        if let rule = digestsBySize[signature.size]?[signature.digest] { return rule }
        return similar.first { $0.signature.matches(signature) }?.rule
    }

    /// True when `other` makes exactly the same decisions and watches the same filesystems:
    /// putting it in force would only throw away the allow cache.
    public func decidesLike(_ other: ExecRules) -> Bool {
        rules == other.rules && blocked == other.blocked && digestsBySize == other.digestsBySize && similar == other.similar
            && filesystems == other.filesystems && countedApps == other.countedApps && counted == other.counted
    }

    /// Resolves the apps of a desired state on disk now: each executable path to its identity
    /// (missing ones are noted and skipped), digests for strict apps, and the filesystems to
    /// watch. Interpreters and launchers are refused here too, whatever the catalog said:
    /// denying `python3` or `flatpak` to everyone is never what a block means.
    ///
    /// - Parameter userWritable: paths whose filesystems users can write to (`/home`, `/tmp`,
    ///   …): watched as well when an app is strict, because that is where copies appear.
    /// - Parameter counted: apps whose launches are counted; their programs are watched too,
    ///   unless blocked (a blocked program is refused whatever counts it).
    /// - Parameter foreign: user-writable filesystems of other mount namespaces, watched like
    ///   `userWritable` (by the device their mountinfo gives, never a `stat` of the path).
    /// - Parameter runners: finds the machine's interpreters again, and recognises loaders and
    ///   interpreters under other names, which are never blocked either.
    public static func resolve(
        _ apps: [BlockedApp], counted countedApps: [CountedApp] = [], hasher: ContentHasher, userWritable: [String],
        foreign: [ForeignMounts.Mount] = [], runners: ProgramRunners = .machine
    ) -> ExecRules {
        runners.refresh()
        var rules: [Rule] = []
        var blocked: [FileIdentity: BlockedFile] = [:]
        var digests: [Int64: [ContentDigest: Int]] = [:]
        var similar: [SimilarProgram] = []
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
                guard ProgramNames.mayBeBlocked(file.resolved), ProgramNames.mayBeBlocked(path), !runners.recognises(file.resolved)
                else {
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
                    if let (signature, key) = hasher.signature(path: file.resolved) {
                        if digests[key.size]?[signature.digest] == nil {
                            digests[key.size, default: [:]][signature.digest] = index
                            if signature.chunks.count >= ContentSignature.minimumChunks {
                                similar.append(SimilarProgram(rule: index, signature: signature))
                            }
                        }
                    } else {
                        notes.append("\(app.id): \(path) could not be read to match copies")
                    }
                }
            }
        }
        var counted: [FileIdentity: Int] = [:]
        for (index, app) in countedApps.enumerated() {
            for path in app.executables {
                guard path.hasPrefix("/"), let file = ExecutableFile.inspect(path, requireExecutable: false) else {
                    notes.append("\(app.id): \(path) not found; its launches are not counted")
                    continue
                }
                guard ProgramNames.mayBeBlocked(file.resolved), ProgramNames.mayBeBlocked(path) else {
                    notes.append("\(app.id): \(path) is an interpreter or launcher and is never counted")
                    continue
                }
                guard blocked[file.identity] == nil, counted[file.identity] == nil else { continue }
                counted[file.identity] = index
                filesystems[file.identity.device] = filesystems[file.identity.device] ?? file.resolved
            }
        }
        if anyStrict {
            for path in userWritable {
                var status = stat()
                guard stat(path, &status) == 0 else { continue }
                let device = UInt64(status.st_dev)
                if filesystems[device] == nil { filesystems[device] = path }
            }
            for mount in foreign where filesystems[mount.device] == nil { filesystems[mount.device] = mount.path }
        }
        return ExecRules(
            rules: rules, blocked: blocked, digestsBySize: digests, similar: similar, filesystems: filesystems, notes: notes,
            countedApps: countedApps, counted: counted)
    }

    /// The rule a running or starting program matches by identity, then (strict, for a
    /// user-controlled file) by content of the file open on `fd`.
    func match(identity: FileIdentity, status: stat, fd: Int32?, hasher: ContentHasher) -> (rule: Int, byContent: Bool)? {
        if let file = blocked[identity] { return (file.rule, false) }
        guard needsContentCheck(status) else { return nil }
        let key = ContentHasher.Key(status)
        let signature: ContentSignature?
        if let known = hasher.cachedSignature(key) {
            signature = known
        } else if let fd {
            signature = hasher.signature(fd: fd, key: key, deadline: .now + .seconds(5))
        } else {
            signature = nil
        }
        return signature.flatMap { rule(matching: $0) }.map { ($0, true) }
    }
}
