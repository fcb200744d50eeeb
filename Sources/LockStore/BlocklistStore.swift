import Foundation
import Glibc
import LockCore
import LockPlatform

/// The imported blocklists on disk: one file per list version in `directory` (the state
/// directory's `lists/`), `NAME.VERSION.list` in `BlocklistFile`'s compact form.
///
/// They live with the state, not the configuration: they are data the daemon made from what it
/// was sent (nothing to edit by hand), they can be large, and older versions stay only as long
/// as a running block still holds them.
public struct BlocklistStore: Sendable {
    /// Where the files are.
    public let directory: String

    /// A store over `directory` (created at the first save).
    public init(directory: String) { self.directory = directory }

    /// The file of one list version.
    public func file(for reference: BlocklistReference) -> String {
        directory + "/\(reference.name).\(reference.version).list"
    }

    /// Every list version on disk, loaded (sets built with `seed`), and the files that could not
    /// be read (left in place, never deleted, so nothing is lost to a bug in this reader).
    public func loadAll(seed: UInt64 = DomainSuffixSet.Builder.defaultSeed) -> (lists: [Blocklist], problems: [FileProblem]) {
        var lists: [Blocklist] = []
        var problems: [FileProblem] = []
        for (reference, path) in files() {
            do {
                let list = try BlocklistFile.read(path, seed: seed)
                guard list.reference == reference else {
                    problems.append(FileProblem(file: path, message: "holds \(list.reference), not what its name says"))
                    continue
                }
                lists.append(list)
            } catch {
                problems.append(error)
            }
        }
        return (lists, problems)
    }

    /// Writes a list version (replacing the file of the same version).
    public func save(_ list: Blocklist) throws(SystemError) {
        try AtomicFile.makeDirectories(directory)
        try BlocklistFile.write(list, to: file(for: list.reference))
    }

    /// Removes a list version's file; a file already gone is not an error.
    public func remove(_ reference: BlocklistReference) throws(SystemError) {
        let path = file(for: reference)
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemError("unlink", path) }
        AtomicFile.syncDirectory(directory)
    }

    /// The list files present, by reference; other files are ignored.
    public func files() -> [(BlocklistReference, String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().compactMap { file in
            let parts = file.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2] == "list", BlocklistReference.isVersion(parts[1]) else { return nil }
            let name = String(parts[0])
            guard (try? NameRule.validate(name, kind: "list")) != nil else { return nil }
            return (BlocklistReference(name: name, version: String(parts[1])), directory + "/" + file)
        }
    }
}
