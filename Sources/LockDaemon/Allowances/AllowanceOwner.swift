import Foundation
import LockCore
import LockStore
import Logging

/// Owns the blocks of allowances (origin `allowance:NAME`), the way `Scheduler` owns those of
/// schedules: the usage meters report time in use, each allowance's ledger counts the time its
/// profile's apps and sites were in use, and when one is used up a block of its profile runs
/// until its period resets. It is a `SessionOwner`: its claims join every other owner's in one
/// batch, and the ledgers it changed are saved in the same transaction as the sessions.
///
/// The block is derived from the ledger alone, at every reconciliation and at start, so a
/// ledger saved with its block restarts that block at the next start.
public actor AllowanceOwner {
    /// One allowance as `lockctl allowances list` and `status` show it.
    public struct Status: Sendable, Equatable {
        public var allowance: Allowance
        public var usedToday: Duration
        public var usedThisWeek: Duration
        /// Time left (nil when it limits no time).
        public var left: Duration?
        /// When its time comes back.
        public var resetsAt: Date
        /// Launches today.
        public var opensToday: Int
        /// Launches left today (nil when it limits none).
        public var opensLeft: Int?
        /// The cooldown still to wait before the next launch (nil when none).
        public var cooldownLeft: Duration?
        /// Whether its block is in force.
        public var blocking: Bool
        /// Whether something it counts was in use at the last report.
        public var inUse: Bool
    }

    var files: AllowanceStore
    var ledgers: [String: AllowanceLedger] = [:]
    private var lastInUse: Set<String> = []
    /// Ledgers changed since they were last saved (nil: removed), saved with the next batch.
    var unsaved: [String: AllowanceLedger?] = [:]
    /// What the reconciliation under way is saving (claims to settle, one at a time).
    private var saving: [String: AllowanceLedger?] = [:]
    private let state: StateStore
    let sessions: SessionService
    let profiles: ProfileService
    private let events: EventBus
    let clock: @Sendable () -> ClockReading
    let zone: @Sendable () -> TimeZone
    let logger: Logger

    /// An owner of the allowances in `directory`.
    public init(
        directory: String, state: StateStore, sessions: SessionService, profiles: ProfileService, events: EventBus,
        clock: @escaping @Sendable () -> ClockReading, zone: @escaping @Sendable () -> TimeZone, logger: Logger
    ) {
        self.files = AllowanceStore(directory: directory)
        self.state = state
        self.sessions = sessions
        self.profiles = profiles
        self.events = events
        self.clock = clock
        self.zone = zone
        self.logger = logger
    }

    /// Reads the files and the saved ledgers, and puts every block that is due in force.
    /// Returns the files' problems.
    @discardableResult
    public func start() async -> [FileProblem] {
        do { ledgers = try state.allowanceLedgers() } catch {
            logger.error("cannot read the allowance ledgers; counting starts again", metadata: ["error": "\(error)"])
        }
        return await reload()
    }

    /// Reads the files again (a bad file keeps its last good version) and reconciles.
    @discardableResult
    public func reload() async -> [FileProblem] {
        // Profiles are checked when blocks are reconciled: a profile deleted later is the same case.
        let problems = files.reload(profiles: nil)
        for problem in problems { logger.error("allowance file problem", metadata: ["problem": "\(problem)"]) }
        await sessions.reconcile(asking: self)
        return problems
    }

    /// The allowances with what is used and left.
    public func list() -> [Status] {
        let now = clock()
        let zone = zone()
        return files.sorted.map { allowance in
            var ledger = ledgers[allowance.name] ?? AllowanceLedger(now: now, in: zone)
            ledger.advance(to: now, in: zone)
            return Status(
                allowance: allowance, usedToday: ledger.usedToday, usedThisWeek: ledger.usedThisWeek, left: ledger.left(of: allowance),
                resetsAt: ledger.resetsAt(allowance), opensToday: ledger.opensToday, opensLeft: ledger.opensLeft(allowance),
                cooldownLeft: ledger.cooldownLeft(allowance, at: now, in: zone),
                blocking: ledger.desiredBlock(allowance, at: now, in: zone) != nil, inUse: lastInUse.contains(allowance.name))
        }
    }

    /// Whether some allowance counts time on this machine (the site meter then keeps the
    /// machine's DNS going through the DNS filter while nothing is blocked).
    public func countsOnThisMachine() -> Bool { files.sorted.contains { $0.target.includesLocal } }

    /// Adds an allowance (and its file).
    public func add(_ allowance: Allowance) async throws(AllowanceError) {
        do { try allowance.validate() } catch { throw .invalid(error) }
        guard await profiles.exists(allowance.profile) else { throw .unknownProfile(allowance.profile) }
        do { try files.create(allowance) } catch { throw .store(error) }
        logger.info("allowance added", metadata: ["allowance": "\(allowance.name)", "profile": "\(allowance.profile)"])
        // Its open limits hold from the answer on.
        await sessions.reconcile(asking: self)
    }

    /// Removes an allowance, its file, its ledger and its block; refused while a strict
    /// allowance's block is in force (a strict block only ends by its period or emergency access),
    /// or while it refuses launches (no launch left, cooling down).
    public func remove(_ name: String) async throws(AllowanceError) {
        guard let allowance = files.allowances[name] else { throw .store(.notFound(name)) }
        let now = clock()
        if allowance.strict, var ledger = ledgers[name] {
            if ledger.desiredBlock(allowance, at: now, in: zone()) != nil { throw .strictBlockActive(name) }
            ledger.advance(to: now, in: zone())
            if ledger.mayOpen(allowance, at: now, in: zone()) != .allowed { throw .strictLimitActive(name) }
        }
        do { try files.delete(name) } catch { throw .store(error) }
        ledgers[name] = nil
        unsaved.updateValue(nil, forKey: name)
        await sessions.reconcile(asking: self)
    }

    /// Takes a meter report: each item's time in use since the meter's last report.
    public func meter(_ inUse: [UsageItem: Duration], at now: ClockReading) async {
        let zone = zone()
        var changed: [String: AllowanceLedger?] = [:]
        var using: Set<String> = []
        for allowance in files.sorted {
            let counted = await counted(inUse, for: allowance)
            var ledger = ledgers[allowance.name] ?? AllowanceLedger(now: now, in: zone)
            // Items in use at once count once: the longest of them is the allowance's time.
            let notices = ledger.record(counted, for: allowance, at: now, in: zone)
            if counted > .zero { using.insert(allowance.name) }
            for notice in notices { announce(notice, allowance, ledger) }
            ledgers[allowance.name] = ledger
            changed[allowance.name] = ledger
        }
        lastInUse = using
        unsaved.merge(changed) { _, new in new }
        await sessions.reconcile(asking: self)
    }

    /// The time `allowance` counts of a report: the longest of its profile's items in use.
    private func counted(_ inUse: [UsageItem: Duration], for allowance: Allowance) async -> Duration {
        guard let expansion = await profiles.expansion(of: allowance.profile) else { return .zero }
        let apps = Set(expansion.rules.apps.map(\.id))
        let local = allowance.target.includesLocal
        var longest = Duration.zero
        for (item, duration) in inUse {
            // This machine's apps and sites for a target that includes it; a group's time
            // (its devices online) for a target naming the group.
            let counts =
                switch item.kind {
                case .app: local && apps.contains(item.name)
                case .site: local && expansion.rules.block.match(item.name) != nil
                case .group: allowance.target.groups.contains(item.name)
                }
            if counts { longest = max(longest, duration) }
        }
        return longest
    }

    private func announce(_ notice: AllowanceNotice, _ allowance: Allowance, _ ledger: AllowanceLedger) {
        switch notice {
        case .warning(let left):
            logger.info("allowance nearly used up", metadata: ["allowance": "\(allowance.name)", "left": "\(DurationParser.format(left))"])
            events.publish(.allowanceWarning(name: allowance.name, profile: allowance.profile, left: left, at: clock().wall))
        case .usedUp:
            logger.notice("allowance used up", metadata: ["allowance": "\(allowance.name)", "resets": "\(ledger.resetsAt(allowance))"])
        }
    }

}

extension AllowanceOwner: SessionOwner {
    public nonisolated func owns(_ origin: SessionOrigin) -> Bool {
        if case .allowance = origin { return true }
        return false
    }

    /// Each allowance's block as its ledger says now, none for allowances that no longer exist;
    /// the ledgers changed since the last save go with them.
    public func claims(at now: ClockReading, owned: [Session], asked: Bool) async -> OwnerClaims {
        let zone = zone()
        var claimed: [SessionOrigin: OwnedSession?] = [:]
        for allowance in files.sorted {
            var ledger = ledgers[allowance.name] ?? AllowanceLedger(now: now, in: zone)
            ledger.advance(to: now, in: zone)
            ledgers[allowance.name] = ledger
            claimed.updateValue(ledger.desiredBlock(allowance, at: now, in: zone), forKey: .allowance(allowance.name))
        }
        for session in owned {
            if case .allowance(let name) = session.origin, files.allowances[name] == nil {
                claimed.updateValue(nil, forKey: session.origin)
            }
        }
        let ledgers = unsaved
        saving = ledgers
        let counted = await countedApps()
        return OwnerClaims(sessions: claimed, records: { _ in ledgers.isEmpty ? [] : [.allowanceLedgers(ledgers)] }, counted: counted)
    }

    public func settle(_ outcome: OwnerOutcome) async {
        // A ledger changed again while this batch was saved (a launch decided meanwhile) stays unsaved.
        if outcome.saved {
            for (name, ledger) in saving where unsaved[name] == ledger { unsaved[name] = nil }
        }
        saving = [:]
        if let failure = outcome.failure {
            logger.error("cannot put the allowances' blocks in force", metadata: ["error": "\(failure)"])
        }
        for (origin, error) in outcome.refused {
            logger.error("cannot put an allowance's block in force", metadata: ["allowance": "\(origin)", "error": "\(error)"])
        }
    }
}

/// Why an allowance change was refused.
public enum AllowanceError: Error, Sendable {
    case invalid(FieldError)
    case unknownProfile(String)
    case strictBlockActive(String)
    case strictLimitActive(String)
    case store(AllowanceStore.Failure)
}
