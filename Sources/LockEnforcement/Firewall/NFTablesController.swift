import Foundation
import LockCore
import Logging
import Synchronization

/// The nftables enforcer's state and decisions, serialised by the actor: what is desired,
/// what has been resolved, what was committed, and what to report.
///
/// Every commit renders the *current* state at the moment it is made and commits run in call
/// order, so when applies, re-resolutions and restores overlap, the last commit always reflects
/// the newest desired state and the freshest addresses.
actor NFTablesController {
    private let table: String
    private let resolver: any NameResolver
    private let doh: DoHList
    private let committer: NFTablesCommitter
    private let logger: Logger
    private let bootClock: @Sendable () -> BootTime
    private let dnsRedirect: (@Sendable () -> DNSRedirect?)?
    private let connectionCheck: (@Sendable () -> Bool)?

    private var desired: DesiredBlock?
    /// Names an apply asked to resolve, not yet resolved; the watch loop (or `settle`) does it.
    private var pendingResolution: (names: [String], for: DesiredBlock)?
    /// Wakes the watch loop when an apply leaves names to resolve.
    let resolutionRequests: AsyncStream<Void>
    private let requestResolution: AsyncStream<Void>.Continuation
    private var book: ResolvedAddressBook
    private var nameservers: [IPNetwork] = []

    private var lastCommitted: NFTablesRuleset?
    private var lastCommitSucceeded = false
    private var lastApplied: Date?
    private var lastError: String?
    private var outsideChangePending = false
    private var issued = 0
    private var completed = 0

    private var lastResolution: Date?
    private var lastResolutionDuration: Duration?
    private var restores = 0
    private var lastRestoreReason: String?
    private var watchMethod = "not running"

    /// Where refused connection attempts are reported; nil: they are not counted.
    private let attempts: (@Sendable (FirewallAttempt) -> Void)?
    /// The NFLOG group to read real-time attempts from, if any.
    private let wantedLogGroup: UInt16?
    private var reader: NFLogReader?
    private var readerProblem: String?
    /// Blocked addresses and their names as last committed, for the NFLOG reader's thread.
    private let liveAttribution = AttributionBox()
    private var attemptCounters = AttemptCounters()
    private var meter = FirewallMeter()

    init(
        table: String, resolver: any NameResolver, doh: DoHList, committer: NFTablesCommitter,
        grace: Duration, dnsRedirect: (@Sendable () -> DNSRedirect?)? = nil, connectionCheck: (@Sendable () -> Bool)? = nil,
        logger: Logger,
        bootClock: @escaping @Sendable () -> BootTime,
        attempts: (@Sendable (FirewallAttempt) -> Void)? = nil, logGroup: UInt16? = nil
    ) {
        self.attempts = attempts
        self.wantedLogGroup = logGroup
        self.dnsRedirect = dnsRedirect
        self.connectionCheck = connectionCheck
        self.table = table
        self.resolver = resolver
        self.doh = doh
        self.committer = committer
        self.logger = logger
        self.bootClock = bootClock
        self.book = ResolvedAddressBook(grace: grace)
        (resolutionRequests, requestResolution) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Makes the table match `desired` at once with the addresses already known (so a lifted
    /// name is lifted and a new explicit address is blocked without waiting for DNS), and leaves
    /// the names to resolve to the watch loop, which commits again when that changes anything:
    /// a change to the block must not wait for DNS (which may take seconds, or not answer at all
    /// before the network is up at boot).
    func apply(_ desired: DesiredBlock) async throws {
        self.desired = desired
        if desired.blocksNetwork { openLogReader() }
        let names = wantedNames()
        book.retain(names: Set(names))
        nameservers = await resolver.nameservers()
        try await commit(force: true)
        pendingResolution = names.isEmpty ? nil : (names, desired)
        if !names.isEmpty { requestResolution.yield() }
    }

    /// Resolves what the last apply left to resolve, if anything, and commits the addresses
    /// (the watch loop calls this when woken; tests and benchmarks call it to wait for it).
    func resolvePending() async {
        guard let (names, wanted) = pendingResolution else { return }
        pendingResolution = nil
        await resolveAndCommit(names, for: wanted)
    }

    private func resolveAndCommit(_ names: [String], for wanted: DesiredBlock) async {
        await resolve(names)
        // A newer apply may have changed what is wanted while this was out; it resolves its own.
        guard desired == wanted else { return }
        do { try await commit(force: false) } catch {
            logger.error("committing resolved addresses failed", metadata: ["error": "\(error)"])
        }
    }

    /// Periodic refresh: resolves every name again and recommits, which also repairs anything
    /// the watch may have missed (a notification lost while it was paused around a commit).
    func refresh() async {
        guard desired != nil, tableWanted else { return }
        nameservers = await resolver.nameservers()
        await resolve(wantedNames())
        do {
            try await commit(force: true)
        } catch {
            logger.error("re-applying after re-resolution failed", metadata: ["error": "\(error)"])
        }
    }

    /// Puts the last desired state back after an outside change.
    func restore(reason: String) async {
        // With nothing blocked there is nothing to protect and the table is absent on purpose,
        // unless it sends DNS through the site meter (an allowance counts on it).
        guard desired != nil, currentRuleset().mode != .off else { return }
        outsideChangePending = true
        restores += 1
        lastRestoreReason = reason
        logger.warning("nftables table changed from outside; restoring", metadata: ["reason": "\(reason)", "table": "inet \(table)"])
        do {
            // In place, like any commit: it puts back every rule, element and chain policy of
            // ours and drops rules and elements others added; an object that cannot be put back
            // that way (a chain recreated with another priority) makes it recreate the table.
            // Chains or sets someone added beside ours stay until the block ends: whoever can
            // add them could as well put them in a table of their own, which is not ours to
            // touch.
            try await commit(force: true)
        } catch {
            logger.error("restoring the nftables table failed", metadata: ["error": "\(error)"])
        }
    }

    func setWatchMethod(_ method: String) {
        watchMethod = method
    }

    /// Stops the NFLOG reader's thread at shutdown; the counters still count.
    func stopAttemptReader() {
        reader?.stop()
        reader = nil
    }

    /// True when the latest resolution of some name failed.
    var hasResolutionFailures: Bool { !book.failures.isEmpty }

    func knownAddresses() -> [String: [IPNetwork]] {
        book.entries.compactMapValues { $0.lastSeen.isEmpty ? nil : $0.lastSeen.keys.sorted() }
    }

    func seed(_ known: [String: [IPNetwork]]) {
        // Recorded as incomplete answers: they add addresses but expire nothing.
        book.record(known.mapValues { NameResolution(addresses: $0, error: "restored from saved state") }, at: bootClock())
        for name in known.keys { book.clearError(for: name) }
    }

    /// Commits again if where DNS goes changed (the site meter began or stopped needing the
    /// redirect while nothing is blocked).
    func redirectChanged() async {
        guard desired != nil, currentRuleset().dnsRedirect != lastCommitted?.dnsRedirect || !lastCommitSucceeded else { return }
        do { try await commit(force: false) } catch {
            logger.error("committing the changed DNS redirect failed", metadata: ["error": "\(error)"])
        }
        requestMeterResolution()
    }

    /// Counts the bytes of `names`' addresses while the table exists (the site meter's names).
    func meter(_ names: [String]) async {
        guard names != meter.names else { return }
        meter.names = names
        book.retain(names: Set(wantedNames()))
        do { try await commit(force: false) } catch { logger.error("committing the metered names failed", metadata: ["error": "\(error)"]) }
        requestMeterResolution()
    }

    /// Bytes counted per metered name so far; empty while the table holds no byte counters.
    func meterBytes() async -> [String: UInt64] {
        guard lastCommitSucceeded, lastCommitted?.metering != nil else { return [:] }
        return (try? await committer.read("list counters table inet \(table)")).map(meter.totals) ?? [:]
    }

    /// Whether the table exists: for a block, or for the site meter's DNS redirect.
    private var tableWanted: Bool { desired?.blocksNetwork == true || dnsRedirect?()?.metering == true }

    /// Every name whose addresses the table needs now.
    private func wantedNames() -> [String] {
        let blocking = desired.map { NFTablesRuleset.namesToResolve(for: $0, doh: doh) } ?? []
        return tableWanted && !meter.names.isEmpty ? Array(Set(blocking).union(meter.names)).sorted() : blocking
    }

    /// Leaves the metered names to the watch loop when the table needs their addresses.
    private func requestMeterResolution() {
        guard let desired, tableWanted, !meter.names.isEmpty, pendingResolution == nil else { return }
        pendingResolution = (wantedNames(), desired)
        requestResolution.yield()
    }

    /// The redirect of the table in force; nil without one.
    var committedRedirect: DNSRedirect? { lastCommitSucceeded ? lastCommitted?.dnsRedirect : nil }

    /// True once something (possibly "nothing blocked") has been applied.
    var hasApplied: Bool { desired != nil }

    func status() -> EnforcerStatus {
        var details: [String: EnforcerStatus.Detail] = [
            "table": .text("inet \(table)"),
            "mode": .text((lastCommitted?.mode ?? .off).rawValue),
            "watch": .text(watchMethod),
            "restores": .count(restores),
            "nameservers": .text(nameservers.map(\.description).joined(separator: " ")),
        ]
        if let ruleset = lastCommitted, ruleset.mode != .off {
            // Entries as the kernel holds them: single addresses plus ranges.
            func count(_ intervals: AddressIntervals, _ family: IPNetwork.Family) -> EnforcerStatus.Detail {
                let split = intervals.split(family)
                return .count(split.addresses.count + split.ranges.count)
            }
            details["block4"] = count(ruleset.block, .ipv4)
            details["block6"] = count(ruleset.block, .ipv6)
            details["doh4"] = count(ruleset.doh, .ipv4)
            details["doh6"] = count(ruleset.doh, .ipv6)
            if ruleset.mode == .allowlist {
                details["allow4"] = count(ruleset.allow, .ipv4)
                details["allow6"] = count(ruleset.allow, .ipv6)
            }
            details["dnsRedirect"] = .text(ruleset.dnsRedirect.map { "port \($0.port)" } ?? "none")
            details["handoff"] = .text(
                ruleset.connectionHandoff ? "TCP to blocked names' addresses judged by the connection check" : "none")
        }
        details["names"] = .count(book.entries.count)
        let failures = book.failures
        details["namesFailing"] = .count(failures.count)
        if let first = failures.keys.min() {
            details["firstFailure"] = .text("\(first): \(failures[first] ?? "")")
        }
        if let lastResolution { details["lastResolution"] = .time(lastResolution) }
        if let lastResolutionDuration { details["resolutionSeconds"] = .seconds(lastResolutionDuration.seconds) }
        if let lastRestoreReason { details["lastRestore"] = .text(lastRestoreReason) }
        if attempts != nil {
            details["attemptsCounted"] = .count(Int(clamping: attemptCounters.totals.values.reduce(0, &+)))
            details["attemptEvents"] = .text(
                reader.map { "NFLOG group \($0.group)" }
                    ?? "counters read periodically" + (readerProblem.map { " (NFLOG: \($0))" } ?? ""))
        }
        return EnforcerStatus(
            name: "nftables",
            applied: desired != nil && lastCommitSucceeded && !outsideChangePending,
            elements: lastCommitted?.elementCount ?? 0,
            lastApplied: lastApplied,
            lastError: lastError,
            details: details)
    }

    /// Whether the table in force rejects the addresses `name` (exactly that name) resolves to.
    func coverage(of name: String) -> Coverage {
        FirewallCoverage.of(
            name, desired: desired, committed: lastCommitSucceeded ? lastCommitted : nil, book: book,
            checkInForce: connectionCheck?() == true)
    }

    /// The ruleset for the current state.
    func currentRuleset() -> NFTablesRuleset {
        guard let desired else { return NFTablesRuleset(table: table, mode: .off) }
        let counting = attempts == nil ? nil : NFTablesRuleset.AttemptCounting(logGroup: reader?.group)
        return NFTablesRuleset(
            table: table, desired: desired, resolved: { book.addresses(for: CollectionOfOne($0)) },
            doh: doh, nameservers: nameservers, dnsRedirect: dnsRedirect?(), counting: counting,
            metered: meter.names, connectionHandoff: connectionCheck?() == true)
    }

    /// Reads the attempt counters and reports how much each grew since the last read, unless
    /// the NFLOG reader already reported those attempts as they happened. Returns the attempts
    /// counted per name since the start.
    @discardableResult
    func readCounters() async -> [String: UInt64] {
        guard attempts != nil, lastCommitted?.counting != nil, lastCommitSucceeded else { return attemptCounters.totals }
        let output: String
        do { output = try await committer.read("list counters table inet \(table)") } catch {
            logger.debug("cannot read the attempt counters", metadata: ["error": "\(error)"])
            return attemptCounters.totals
        }
        for (name, grown) in attemptCounters.read(output) {
            if reader == nil { attempts?(FirewallAttempt(name: name, address: "", count: Int(clamping: grown), realTime: false)) }
        }
        return attemptCounters.totals
    }

    /// Binds the NFLOG group once, the first time something is blocked; without it the
    /// counters alone report attempts.
    private func openLogReader() {
        guard let attempts, let group = wantedLogGroup, reader == nil, readerProblem == nil else { return }
        let attribution = liveAttribution
        do {
            let opened = try NFLogReader(group: group) { address in
                let name = attribution.name(of: address) ?? address.description
                attempts(FirewallAttempt(name: name, address: address.description, realTime: true))
            }
            opened.start()
            reader = opened
            logger.info("reading blocked connection attempts as they happen", metadata: ["nflog": "\(group)"])
        } catch {
            readerProblem = "\(error)"
            logger.notice("blocked connection attempts are counted, but not reported as they happen", metadata: ["error": "\(error)"])
        }
    }

    private func resolve(_ names: [String]) async {
        let started = ContinuousClock.now
        let answered = await resolver.resolve(names)
        let results = answered.mapValues(\.withoutSinkholes)
        let sinkholed = answered.filter(\.value.isSinkholed).keys.sorted()
        if !sinkholed.isEmpty {
            logger.warning(
                "the DNS server answered only 0.0.0.0/loopback for some names: it reads the hosts file or is filtered itself",
                metadata: ["names": "\(sinkholed.prefix(5))"])
        }
        // An apply may have changed the desired state while this run was out; only names still
        // wanted are recorded, so a lifted name cannot come back.
        let wanted = Set(wantedNames())
        book.record(results.filter { wanted.contains($0.key) }, at: bootClock())
        lastResolution = Date()
        lastResolutionDuration = ContinuousClock.now - started

        let failed = results.filter { !$0.value.isComplete }
        if !failed.isEmpty {
            let sample = failed.keys.sorted().prefix(3).map { "\($0): \(failed[$0]?.error ?? "")" }
            logger.warning(
                "some names could not be resolved; their earlier addresses stay blocked",
                metadata: [
                    "failed": "\(failed.count)", "of": "\(names.count)", "examples": "\(sample)",
                ])
        }
    }

    private func commit(force: Bool) async throws {
        let ruleset = currentRuleset()
        if ruleset.counting == nil, lastCommitted?.counting != nil {
            // The table and its counters go: count what they hold first.
            await readCounters()
        }
        if !force, lastCommitSucceeded, !outsideChangePending, ruleset == lastCommitted { return }
        issued += 1
        let number = issued
        let started = ContinuousClock.now
        do {
            var foreign: Bool
            do {
                foreign = try await committer.commit(ruleset.script)
            } catch {
                // The table exists in a shape an update cannot reach (a base chain recreated
                // with another priority, a set with another type): start it afresh.
                logger.warning("updating the nftables table in place failed; recreating it", metadata: ["error": "\(error)"])
                foreign = try await committer.commit(ruleset.replacementScript)
            }
            if foreign {
                // Someone committed while notifications were paused; what they did is unknown,
                // so commit once more now that the watch is listening again.
                logger.notice("another process changed nftables during a commit; committing again")
                _ = try await committer.commit(ruleset.script)
            }
            if number > completed {
                completed = number
                attemptCounters.committed(ruleset)
                meter.committed(ruleset)
                liveAttribution.set(ruleset.attribution)
                lastCommitted = ruleset
                lastCommitSucceeded = true
                lastApplied = Date()
                lastError = nil
                outsideChangePending = false
            }
            logger.debug(
                "committed nftables table",
                metadata: [
                    "mode": "\(ruleset.mode.rawValue)", "elements": "\(ruleset.elementCount)",
                    "duration": "\(ContinuousClock.now - started)",
                ])
        } catch {
            if number > completed {
                completed = number
                lastCommitSucceeded = false
                lastError = "\(error)"
            }
            logger.error("nftables commit failed", metadata: ["error": "\(error)"])
            throw error
        }
    }
}
