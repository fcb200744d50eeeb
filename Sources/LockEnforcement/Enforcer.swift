import Foundation
import LockCore

/// A mechanism that makes the machine block what a `DesiredBlock` says.
///
/// `apply` is declarative and idempotent: it is always given the whole desired state and makes
/// the system match it exactly, however the system looks beforehand (including after a crash
/// half-way through an earlier apply). Applying the same state twice changes nothing.
public protocol Enforcer: AnyObject, Sendable {
    /// Stable short name shown in status output and logs (`hosts`, `nftables`).
    var name: String { get }

    /// Makes the system match `desired`. Throws if it could not; the previous state stays in
    /// force as far as the mechanism allows (never a half-applied block).
    func apply(_ desired: DesiredBlock) async throws

    /// Watches for outside changes (someone editing or flushing what this enforcer manages) and
    /// restores the last applied state. Runs until the task is cancelled; when it cannot watch,
    /// it reports that in `status()` and tries again rather than returning.
    func watch() async

    /// What this enforcer has in force now, for `lockctl status` and `lockctl doctor`.
    func status() async -> EnforcerStatus

    /// Its own checks of what it manages, as a user of the machine would see it.
    func diagnose() async -> [Finding]

    /// Whether it keeps `name` (normalised: lowercase, punycode; a trailing dot kept when the
    /// user typed one) from being reached now, or nil when names are not its business (apps).
    /// Answers from what is in force, not from what was asked for.
    func coverage(of name: String) async -> Coverage?

    /// What names it can and cannot cover, for doctor; nil when names are not its business.
    var scope: EnforcerScope? { get }

    /// Whether it keeps the app with this id (or any of these executables) from running now,
    /// or nil when apps are not its business. Answers from what is in force.
    func appCoverage(id: String, executables: [String]) async -> Coverage?
}

extension Enforcer {
    public func diagnose() async -> [Finding] { [] }
    public func coverage(of name: String) async -> Coverage? { nil }
    public var scope: EnforcerScope? { nil }
    public func appCoverage(id: String, executables: [String]) async -> Coverage? { nil }
}
