import Foundation
import LockCore
import Synchronization

/// Every imported list version the daemon has loaded, each held once: the sessions, the dns
/// enforcer and `lockctl check` all read the same `Blocklist` values (their sets are shared, not
/// copied). Which version of each list is current (what a block starting now gets) is kept
/// here too.
///
/// Reads are synchronous and lock-protected, because the DNS filter asks while it builds a
/// policy; changes come from the `ListService` only.
public final class BlocklistLibrary: Sendable {
    private struct State {
        var versions: [BlocklistReference: Blocklist] = [:]
        var current: [String: BlocklistReference] = [:]
    }

    private let state = Mutex(State())

    /// An empty library.
    public init() {}

    /// A library holding `lists`; the newest import of each name is current.
    public init(_ lists: [Blocklist]) {
        state.withLock { state in
            for list in lists {
                state.versions[list.reference] = list
                if let current = state.current[list.reference.name], let held = state.versions[current],
                    (held.info.sequence, held.info.importedAt) > (list.info.sequence, list.info.importedAt)
                {
                    continue
                }
                state.current[list.reference.name] = list.reference
            }
        }
    }

    /// A loaded list version, or nil.
    public func list(_ reference: BlocklistReference) -> Blocklist? { state.withLock { $0.versions[reference] } }

    /// The current version of the list called `name`, or nil when no list has that name.
    public func current(_ name: String) -> BlocklistReference? { state.withLock { $0.current[name] } }

    /// Every list's current version, by name.
    public func currentLists() -> [Blocklist] {
        state.withLock { state in state.current.keys.sorted().compactMap { state.versions[state.current[$0]!] } }
    }

    /// Every version loaded.
    public var references: [BlocklistReference] { state.withLock { $0.versions.keys.sorted() } }

    /// The next import number for the list `name`.
    func nextSequence(of name: String) -> Int {
        state.withLock { state in (state.versions.values.filter { $0.reference.name == name }.map(\.info.sequence).max() ?? 0) + 1 }
    }

    /// Adds a version and makes it current; returns the version that was current before.
    @discardableResult
    func install(_ list: Blocklist) -> BlocklistReference? {
        state.withLock { state in
            state.versions[list.reference] = list
            defer { state.current[list.reference.name] = list.reference }
            return state.current[list.reference.name]
        }
    }

    /// Makes `reference` current again (undoing an install), or forgets the name for nil.
    func setCurrent(_ name: String, _ reference: BlocklistReference?) {
        state.withLock { $0.current[name] = reference }
    }

    /// Drops a version (the current one only together with its name).
    func remove(_ reference: BlocklistReference) {
        state.withLock { state in
            state.versions[reference] = nil
            if state.current[reference.name] == reference { state.current[reference.name] = nil }
        }
    }

    /// Finds a loaded version, for the enforcers.
    public var resolver: @Sendable (BlocklistReference) -> Blocklist? {
        { [self] reference in list(reference) }
    }

    /// The current version of a list by name, for profile expansion.
    public var currentResolver: @Sendable (String) -> BlocklistReference? {
        { [self] name in current(name) }
    }
}
