import LockCore
import LockEnforcement
import Logging

/// Hands the desired block to every enforcer, all or nothing: when one fails, those that
/// already applied the new state are given the previous one back, so the machine is never left
/// with a half-applied block.
public final class Enforcement: Sendable {
    /// The enforcers, in the order they apply.
    public let enforcers: [any Enforcer]
    private let logger: Logger
    /// Flushed after every change of what is blocked on the network (nil: leave caches alone).
    let caches: ResolverCacheFlusher?

    /// Drives `enforcers`.
    public convenience init(enforcers: [any Enforcer], logger: Logger) {
        self.init(enforcers: enforcers, caches: nil, logger: logger)
    }

    init(enforcers: [any Enforcer], caches: ResolverCacheFlusher?, logger: Logger) {
        self.enforcers = enforcers
        self.caches = caches
        self.logger = logger
    }

    /// True when `a` and `b` block different things on the network (apps aside).
    static func networkDiffers(_ a: DesiredBlock, _ b: DesiredBlock) -> Bool {
        a.domains != b.domains || a.addresses != b.addresses || a.allowOnly != b.allowOnly || a.rules != b.rules
    }

    /// Applies `desired` everywhere, or, when an enforcer fails, puts `previous` back on those
    /// that had applied it and throws that enforcer's error.
    public func apply(_ desired: DesiredBlock, previous: DesiredBlock) async throws {
        var done: [any Enforcer] = []
        for enforcer in enforcers {
            do {
                try await enforcer.apply(desired)
                done.append(enforcer)
            } catch {
                logger.error(
                    "enforcement failed; putting the previous state back",
                    metadata: ["enforcer": "\(enforcer.name)", "error": "\(error)"])
                for applied in done { try? await applied.apply(previous) }
                throw EnforcementFailure(enforcer: enforcer.name, underlying: "\(error)")
            }
        }
        if Self.networkDiffers(desired, previous) { caches?.flush() }
    }

    /// Applies `desired` on every enforcer, whatever the others do (at start-up, and when
    /// retrying); returns the failures.
    public func applyEach(_ desired: DesiredBlock) async -> [EnforcementFailure] {
        var failures: [EnforcementFailure] = []
        for enforcer in enforcers {
            do { try await enforcer.apply(desired) } catch {
                logger.error("enforcement failed", metadata: ["enforcer": "\(enforcer.name)", "error": "\(error)"])
                failures.append(EnforcementFailure(enforcer: enforcer.name, underlying: "\(error)"))
            }
        }
        // Caches may hold answers from before the daemon (re)started.
        if desired.blocksNetwork { caches?.flush() }
        return failures
    }

    /// Every enforcer's status, in order.
    public func statuses() async -> [EnforcerStatus] {
        var result: [EnforcerStatus] = []
        for enforcer in enforcers { result.append(await enforcer.status()) }
        return result
    }

    /// Every enforcer's own findings, in order.
    public func findings() async -> [Finding] {
        var result: [Finding] = []
        for enforcer in enforcers { result += await enforcer.diagnose() }
        return result
    }
}

/// One enforcer's failure to apply.
public struct EnforcementFailure: Error, Sendable, CustomStringConvertible {
    /// The enforcer.
    public var enforcer: String
    /// What went wrong.
    public var underlying: String
    public var description: String { "\(enforcer): \(underlying)" }
}
