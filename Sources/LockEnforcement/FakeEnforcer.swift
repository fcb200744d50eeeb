import Foundation
import LockCore

/// An enforcer that only remembers what it was asked to do, for unit tests of the code that
/// drives enforcers. It can be told to fail, to test rollback.
public actor FakeEnforcer: Enforcer {
    public nonisolated let name: String
    /// Every state applied, in order.
    public private(set) var applied: [DesiredBlock] = []
    /// When set, the next applies throw this message.
    public private(set) var failure: String?

    private let lists: @Sendable (BlocklistReference) -> Blocklist?

    /// Creates a fake called `name`; it covers whatever the last state applied blocks
    /// (imported lists as `lists` finds them), as a perfect enforcer would.
    public init(name: String = "fake", lists: @escaping @Sendable (BlocklistReference) -> Blocklist? = { _ in nil }) {
        self.name = name
        self.lists = lists
    }

    /// Makes later applies fail (or succeed again, for nil).
    public func setFailure(_ message: String?) { failure = message }

    /// The last state applied.
    public var current: DesiredBlock? { applied.last }

    public func apply(_ desired: DesiredBlock) async throws {
        if let failure { throw FakeEnforcerError(message: failure) }
        applied.append(desired)
    }

    public func watch() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    public func coverage(of name: String) async -> Coverage? {
        guard let rule = current?.verdict(for: name, lists: lists) else { return .doesNotCover("not blocked") }
        return .blocks("rule \(rule)")
    }

    public func appCoverage(id: String, executables: [String]) async -> Coverage? {
        let paths = Set(executables)
        guard current?.apps.contains(where: { $0.id == id || !paths.isDisjoint(with: $0.executables) }) == true else {
            return .doesNotCover("not blocked")
        }
        return .blocks("app \(id)")
    }

    public nonisolated var scope: EnforcerScope? { EnforcerScope(covers: "whatever is blocked (a test double)", misses: "nothing") }

    public func status() async -> EnforcerStatus {
        EnforcerStatus(
            name: name, applied: failure == nil, elements: current?.domains.count ?? 0,
            lastApplied: nil, lastError: failure)
    }
}

/// The error a `FakeEnforcer` throws when told to fail.
public struct FakeEnforcerError: Error, CustomStringConvertible {
    /// The message it was told to fail with.
    public var message: String
    public var description: String { message }
}
