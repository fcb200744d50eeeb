import CLinux
import Foundation
import LockCore
import LockNames
import LockPlatform
import LockStore
import Logging
import Synchronization

/// The imported blocklists: receiving and parsing a list's text as it streams in, storing each
/// version in its compact form, and the library every reader shares. What a list change means
/// for running blocks is the `Coordinator`'s business, which calls this service.
public actor ListService {
    private let store: BlocklistStore
    /// The loaded lists, shared with the dns enforcer and the profile expansion.
    public nonisolated let library: BlocklistLibrary
    private nonisolated let names: DomainNameParser
    private nonisolated let logger: Logger
    private nonisolated let clock: @Sendable () -> ClockReading
    /// The name of the list being received, if any: one import at a time, so that memory is
    /// bounded by one list being built.
    private nonisolated let receiving = Mutex<String?>(nil)
    /// Files that could not be loaded at start-up.
    public private(set) var problems: [FileProblem]

    /// A service over `store`, with `library` as loaded from it (`load`).
    public init(
        store: BlocklistStore, library: BlocklistLibrary, problems: [FileProblem] = [], names: DomainNameParser,
        logger: Logger, clock: @escaping @Sendable () -> ClockReading
    ) {
        self.store = store
        self.library = library
        self.problems = problems
        self.names = names
        self.logger = logger
        self.clock = clock
    }

    /// Loads every stored list version (start-up), logging the files that cannot be read.
    public static func load(_ store: BlocklistStore, logger: Logger) -> (library: BlocklistLibrary, problems: [FileProblem]) {
        let started = ContinuousClock.now
        let (lists, problems) = store.loadAll(seed: UInt64.random(in: .min ... .max))
        for problem in problems {
            logger.error("a stored blocklist cannot be read; it is left as it is and not used", metadata: ["problem": "\(problem)"])
        }
        if !lists.isEmpty {
            logger.info(
                "blocklists loaded",
                metadata: [
                    "versions": "\(lists.count)", "names": "\(lists.reduce(0) { $0 + $1.block.count })",
                    "duration": "\(ContinuousClock.now - started)",
                ])
        }
        return (BlocklistLibrary(lists), problems)
    }

    /// The most names (and exceptions) one list may hold.
    public static let maximumNames = BlocklistFile.maximumNames

    // MARK: - Queries

    /// Every list's current version.
    public nonisolated func all() -> [Blocklist] { library.currentLists() }

    /// The current version of the list `name`.
    public nonisolated func list(_ name: String) throws(ListError) -> Blocklist {
        guard let reference = library.current(name), let list = library.list(reference) else { throw .notFound(name) }
        return list
    }

    // MARK: - Receiving

    /// Reads a list's text piece by piece from `next` (nil at the end) and builds it, never
    /// holding the text: the parser keeps at most one line, the sets hold each name once. The
    /// list is not stored or used yet (`install`).
    ///
    /// - Throws: `ListError.invalidName` before reading anything; `.importInProgress` while
    ///   another import is received; `.tooManyNames`, `.empty`, or the error `next` throws.
    public nonisolated func receive(
        _ name: String, source: String,
        from next: () async throws(ListError) -> [UInt8]?
    ) async throws(ListError) -> Blocklist {
        do throws(FieldError) { try NameRule.validate(name, kind: "list") } catch { throw .invalidName(error) }
        let busy = receiving.withLock { current -> String? in
            if let current { return current }
            current = name
            return nil
        }
        if let busy { throw .importInProgress(busy) }
        defer { receiving.withLock { $0 = nil } }

        let started = ContinuousClock.now
        let seed = UInt64.random(in: .min ... .max)
        let block = DomainSuffixSet.Builder(seed: seed)
        let allow = DomainSuffixSet.Builder(seed: seed)
        let names = self.names
        let suffixes = names.publicSuffixes
        var parser = BlocklistParser(
            normalize: { try? names.lookupName($0).value },
            refuse: { name in suffixes?.isPublicSuffix(name) == true ? .publicSuffix : nil })
        let emit = { (entry: BlocklistEntry) in
            if entry.isException { _ = allow.insert(entry.name) } else { _ = block.insert(entry.name) }
        }
        var bytes = 0
        while let chunk = try await next() {
            bytes += chunk.count
            chunk.withUnsafeBytes { parser.parse($0, emit) }
            if block.count + allow.count > Self.maximumNames { throw .tooManyNames(limit: Self.maximumNames) }
        }
        let report = parser.finish(emit)
        guard block.count > 0 || allow.count > 0 else { throw .empty(report: report) }
        let blockSet = block.build(collapsingCovered: true)
        let allowSet = allow.build(collapsingCovered: true)
        let version = BlocklistFile.version(block: blockSet, allow: allowSet)
        let info = BlocklistInfo(
            name: name, version: version, source: source, importedAt: clock().wall, names: blockSet.count,
            exceptions: allowSet.count, report: report)
        // The text's pieces and the names parsed from it are freed by now; give their pages back.
        malloc_trim(0)
        logger.info(
            "blocklist received",
            metadata: [
                "list": "\(name)", "version": "\(version)", "bytes": "\(bytes)", "lines": "\(report.lines)",
                "names": "\(blockSet.count)", "exceptions": "\(allowSet.count)", "skipped": "\(report.skippedTotal)",
                "duration": "\(ContinuousClock.now - started)",
            ])
        return Blocklist(reference: info.reference, block: blockSet, allow: allowSet, info: info)
    }

    // MARK: - Changes (called by the coordinator)

    /// Stores `list` and makes it the current version of its name; returns the version that
    /// was current before.
    func install(_ received: Blocklist) throws(ListError) -> BlocklistReference? {
        var list = received
        list.info.sequence = library.nextSequence(of: list.reference.name)
        do throws(SystemError) { try store.save(list) } catch { throw .io(error.description) }
        // An identical version already loaded keeps its sets (readers may hold them); only the
        // facts of the import are new.
        var installed = list
        if let loaded = library.list(list.reference) {
            installed = Blocklist(reference: loaded.reference, block: loaded.block, allow: loaded.allow, info: list.info)
        }
        return library.install(installed)
    }

    /// Undoes `install` after the running blocks could not be moved to the new version.
    func uninstall(_ list: Blocklist, previous: BlocklistReference?) {
        library.setCurrent(list.reference.name, previous)
        if previous != list.reference { drop(list.reference) }
    }

    /// Forgets every version of the list `name` and removes its files.
    func delete(_ name: String) throws(ListError) {
        for reference in library.references where reference.name == name {
            library.remove(reference)
            do throws(SystemError) { try store.remove(reference) } catch { throw .io(error.description) }
        }
        malloc_trim(0)
        logger.info("blocklist removed", metadata: ["list": "\(name)"])
    }

    /// Forgets the versions that are neither current nor in `held` (by running blocks), and
    /// removes their files. Returns them.
    @discardableResult
    func collectGarbage(keeping held: Set<BlocklistReference>) -> [BlocklistReference] {
        let unused = library.references.filter { !held.contains($0) && library.current($0.name) != $0 }
        for reference in unused { drop(reference) }
        // A dropped version's sets are freed only once no policy holds them any more, which the
        // commit before this one made sure of; without a trim their pages stay with the process.
        if !unused.isEmpty { malloc_trim(0) }
        return unused
    }

    private func drop(_ reference: BlocklistReference) {
        library.remove(reference)
        do throws(SystemError) { try store.remove(reference) } catch {
            logger.error("cannot remove an unused blocklist version", metadata: ["list": "\(reference)", "error": "\(error)"])
        }
        logger.debug("unused blocklist version dropped", metadata: ["list": "\(reference)"])
    }
}
