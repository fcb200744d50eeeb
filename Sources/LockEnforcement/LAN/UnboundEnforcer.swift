import Foundation
import LockCore
import LockPlatform
import Logging
import NIOPosix

/// Blocks for the LAN through a running Unbound, driven over its control socket: the LAN part
/// of the desired state (`DesiredBlock.lan`) becomes local zones, global ones for `lan`
/// sessions and view ones (`simplylock-GROUP`) for device groups (see `UnboundZones`).
///
/// Profile-sized changes go through the control socket as the difference from what Unbound
/// holds (`local_zones`, `local_zones_remove`, `view_local_zone`…): a few milliseconds for
/// a thousand names. Changes of more than `bulkThreshold` zones, new device groups, and the
/// first apply after simplylockd starts (it cannot know what an earlier daemon left) rewrite
/// the include file with the whole state and `reload_keep_cache`: Unbound reads a file far
/// faster than it reads the socket, one byte per system call.
///
/// Zones added through the socket are lost when Unbound restarts or reloads. A zone is kept in
/// the sentinel view for that reason; `watch()` polls it and, when it is gone, puts the
/// difference between the include file (what Unbound read at its start) and the desired
/// state back.
public actor UnboundEnforcer: Enforcer {
    public nonisolated let name = "unbound"

    /// How the enforcer reaches and drives Unbound.
    public struct Settings: Sendable, Equatable {
        /// Unbound's control socket.
        public var controlPath: String
        /// The include file the enforcer writes.
        public var includePath: String
        /// Answer 0.0.0.0 / :: (`always_null`) instead of NXDOMAIN.
        public var answerNull: Bool
        /// Changes of more zones than this go through the include file and a reload.
        public var bulkThreshold: Int
        /// Changes of more view zones than this too: views have no bulk command, each zone is a
        /// connection (about 65 µs), and a reload costs about 25 ms (measured with Unbound 1.17).
        public var viewBulkThreshold: Int
        /// How often `watch()` checks that Unbound still holds the zones.
        public var pollInterval: Duration
        /// Unbound's log file (`logfile:` with `log-local-actions: yes`), read for blocked
        /// attempts per device group; nil: not counted.
        public var logPath: String?

        /// Creates settings.
        public init(
            controlPath: String, includePath: String, answerNull: Bool = false, bulkThreshold: Int = 5_000,
            viewBulkThreshold: Int = 300, pollInterval: Duration = .milliseconds(200), logPath: String? = nil
        ) {
            self.logPath = logPath
            self.viewBulkThreshold = viewBulkThreshold
            self.controlPath = controlPath
            self.includePath = includePath
            self.answerNull = answerNull
            self.bulkThreshold = bulkThreshold
            self.pollInterval = pollInterval
        }
    }

    private let settings: Settings
    private let control: UnboundControl
    private let logger: Logger

    /// The LAN part last put in force.
    private var applied: LANBlock?
    /// The LAN part asked for while Unbound did not answer: put in force when it does.
    private var waitingForUnbound: LANBlock?
    /// What Unbound holds now, as far as known; nil: unknown (start, or after a failure).
    private var running: UnboundZones?
    /// The groups and zones in the include file this daemon wrote; nil: not written yet.
    private var file: (groups: [DeviceGroup], zones: UnboundZones)?
    private var lastApplied: Date?
    private var lastError: String?
    private var lastApplySeconds: Double?
    private var lastMethod = "none"
    private var restores = 0
    private var reloads = 0
    private var version: String?

    private var actions: UnboundActionLog?

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates the enforcer; nothing is sent to Unbound before the first `apply`.
    public init(settings: Settings, logger: Logger = Logger(label: "simplylock.unbound")) {
        self.settings = settings
        self.control = UnboundControl(path: settings.controlPath)
        self.logger = logger
    }

    /// Puts the LAN part of `desired` in force; the rest of it is other enforcers' business.
    ///
    /// While Unbound does not answer on its control socket (stopped, restarting, not started
    /// yet at boot) the state is kept and put in force by `watch()` as soon as it answers: a
    /// DNS server that is down answers nobody, so nothing leaks meanwhile, and a session is not
    /// refused for it. `status()` reports the wait.
    ///
    /// - Throws: `UnboundControlError.refused` when Unbound refuses a change,
    ///   `UnboundEnforcerError` when it does not read the include file; what Unbound held
    ///   before stays in force as far as it got (the next apply starts from a reload).
    public func apply(_ desired: DesiredBlock) async throws {
        await lock()
        defer { unlock() }
        guard desired.lan != applied || running == nil else {
            waitingForUnbound = nil
            return
        }
        do {
            try await put(desired.lan, restoring: false)
            waitingForUnbound = nil
        } catch UnboundControlError.unreachable(let path, let reason) {
            waitingForUnbound = desired.lan
            lastError = "\(UnboundControlError.unreachable(path: path, reason: reason)); applied when Unbound answers"
            logger.warning("Unbound does not answer; the LAN block is put in force when it does", metadata: ["reason": "\(reason)"])
        }
    }

    /// Queries per device group that Unbound logged (`log-queries: yes`) since the last call:
    /// what the group meter counts. Read from the log by `watch()`.
    public func takeGroupQueries() -> [String: Int] {
        guard var log = actions else { return [:] }
        defer { actions = log }
        return log.takeQueries()
    }

    /// Polls the sentinel zone; when Unbound restarted or reloaded, puts the last state back.
    public func watch() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: settings.pollInterval) } catch { break }
            await lock()
            await check()
            readLog()
            unlock()
        }
    }

    public func status() async -> EnforcerStatus {
        var details: [String: EnforcerStatus.Detail] = [
            "control": .text(settings.controlPath),
            "include": .text(settings.includePath),
            "method": .text(lastMethod),
            "restores": .count(restores),
            "reloads": .count(reloads),
            "groups": .text((applied?.groups ?? []).map(\.name).joined(separator: " ")),
            "blocking": .text((waitingForUnbound ?? applied).map(Self.describe) ?? "nothing"),
            "covers": .text("each blocked name and every name under it, for the LAN clients of Unbound (per device group with views)"),
        ]
        if let version { details["version"] = .text(version) }
        if let actions {
            details["attempts"] = .text(actions.attempts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            details["attemptsTotal"] = .count(actions.attempts.values.reduce(0, +))
        }
        if let lastApplySeconds { details["applySeconds"] = .seconds(lastApplySeconds) }
        if let unknown = applied?.unknownGroups, !unknown.isEmpty {
            details["unknownGroups"] = .text(unknown.joined(separator: " "))
        }
        return EnforcerStatus(
            name: name, applied: running != nil && lastError == nil, elements: running?.count ?? 0,
            lastApplied: lastApplied, lastError: lastError, details: details)
    }

    public func diagnose() async -> [Finding] {
        var findings: [Finding] = []
        let control = self.control
        let status: String
        do {
            status = try await Self.offPool { try control.run("status") }
        } catch {
            return [
                Finding(
                    "unbound control socket", .problem, "\(error)",
                    fix: """
                        in unbound.conf: remote-control: control-enable: yes, control-interface: \(settings.controlPath), \
                        control-use-cert: no; then restart Unbound
                        """)
            ]
        }
        let version = Self.version(in: status)
        findings.append(
            Finding("unbound control socket", .ok, "\(settings.controlPath) answers (Unbound \(version ?? "of unknown version"))"))
        do {
            _ = try await Self.offPool { try control.run("view_list_local_zones \(UnboundZones.sentinelView)") }
            findings.append(Finding("unbound include file", .ok, "Unbound reads \(settings.includePath) (its views are declared)"))
        } catch {
            findings.append(
                Finding(
                    "unbound include file", .problem, "Unbound does not read \(settings.includePath): \(error)",
                    fix: """
                        include it at top level of unbound.conf (include-toplevel: "\(settings.includePath)", or Debian's \
                        include-toplevel of /etc/unbound/unbound.conf.d/*.conf), then restart Unbound
                        """))
        }
        if let unknown = applied?.unknownGroups, !unknown.isEmpty {
            findings.append(
                Finding(
                    "device groups", .warning, "sessions target groups no longer in [lan]: \(unknown.joined(separator: ", "))",
                    fix: "add them back to [lan] in simplylockd.toml, or stop those sessions"))
        }
        return findings
    }

    // MARK: - Putting zones in force

    private func put(_ lan: LANBlock, restoring: Bool) async throws {
        let started = ContinuousClock.now
        let target = UnboundZones(lan, answerNull: settings.answerNull)
        do {
            var restarted = false
            if running == nil, let file, try await sentinelMissing() {
                // Unbound started afresh from the include file this daemon wrote.
                running = file.zones
                restarted = true
            }
            let current = running
            if let current, file?.groups == lan.groups, current.changeCount(to: target) <= settings.bulkThreshold,
                current.viewChangeCount(to: target) <= min(settings.viewBulkThreshold, settings.bulkThreshold),
                !(target.count == 0 && file?.zones.count != 0)
            {
                try await change(from: current, to: target)
                if restarted {
                    let control = self.control
                    try await Self.offPool { _ = try control.run(Self.sentinelCommand) }
                }
                lastMethod = "control socket"
            } else {
                try await reload(groups: lan.groups, zones: target)
                lastMethod = "include file and reload_keep_cache"
            }
            running = target
            applied = lan
            lastError = nil
            lastApplied = Date()
            lastApplySeconds = (ContinuousClock.now - started).seconds
            if restoring { restores += 1 }
            logger.debug(
                "unbound zones applied",
                metadata: [
                    "zones": "\(target.count)", "method": "\(lastMethod)", "seconds": "\(lastApplySeconds ?? 0)",
                ])
        } catch {
            running = nil
            lastError = "\(error)"
            throw error
        }
    }

    private func change(from current: UnboundZones, to target: UnboundZones) async throws {
        let control = self.control
        let steps = current.changes(to: target)
        try await Self.offPool {
            for step in steps {
                if let view = step.view {
                    // Unbound has no bulk command for views: one connection per zone (several at a
                    // time were no faster: Unbound serves its control socket on one thread).
                    for name in step.remove { _ = try control.run("view_local_zone_remove \(view) \(name)") }
                    for (name, type) in step.add { _ = try control.run("view_local_zone \(view) \(name) \(type)") }
                } else {
                    if !step.remove.isEmpty { _ = try control.run("local_zones_remove", lines: step.remove) }
                    if !step.add.isEmpty { _ = try control.run("local_zones", lines: step.add.map { "\($0.0) \($0.1)" }) }
                }
            }
        }
    }

    private func reload(groups: [DeviceGroup], zones: UnboundZones) async throws {
        let control = self.control
        let text = UnboundIncludeFile.render(groups: groups, zones: zones)
        let path = settings.includePath
        let sentinel = Self.sentinelCommand
        try await Self.offPool {
            try AtomicFile.makeDirectories((path as NSString).deletingLastPathComponent)
            _ = try AtomicFile.write(Array(text.utf8), to: path, defaultMode: 0o644)
            _ = try control.run("reload_keep_cache")
            // Unbound answers before it reloads; the next command is served by the reloaded one.
            do { _ = try control.run(sentinel) } catch UnboundControlError.refused {
                throw UnboundEnforcerError.includeNotRead(path: path)
            }
        }
        file = (groups, zones)
        reloads += 1
        if let status = try? await Self.offPool({ try control.run("status") }) { version = Self.version(in: status) }
    }

    /// True when the sentinel zone is gone: Unbound restarted or reloaded since it was put.
    private func sentinelMissing() async throws -> Bool {
        let control = self.control
        let answer = try await Self.offPool { () throws -> String in
            do { return try control.run("view_list_local_zones \(UnboundZones.sentinelView)") } catch UnboundControlError.refused {
                throw UnboundEnforcerError.includeNotRead(path: self.settings.includePath)
            }
        }
        return !answer.contains(UnboundZones.sentinelZone)
    }

    private static let sentinelCommand = "view_local_zone \(UnboundZones.sentinelView) \(UnboundZones.sentinelZone) always_nxdomain"

    private func check() async {
        guard let wanted = waitingForUnbound ?? applied else { return }
        do {
            if running != nil {
                guard try await sentinelMissing() else { return }
                logger.notice("Unbound lost the zones (it restarted or reloaded); putting them back")
                running = nil
            }
            try await put(wanted, restoring: applied != nil)
            if waitingForUnbound != nil { logger.notice("Unbound answers; the LAN block is in force") }
            waitingForUnbound = nil
        } catch {
            // Unbound is down or restarting: the zones are put back when it answers again.
            running = nil
            lastError = waitingForUnbound == nil ? "\(error)" : "\(error); applied when Unbound answers"
        }
    }

    /// Counts the blocked attempts Unbound logged since the last poll (from the log's end at
    /// the first one: what was logged before this daemon ran is not counted).
    private func readLog() {
        guard let path = settings.logPath, let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return }
        guard var log = actions else {
            actions = UnboundActionLog(offset: Int(size))
            return
        }
        if Int(size) < log.offset { log.restart() }
        guard Int(size) > log.offset else { return }
        do {
            try handle.seek(toOffset: UInt64(log.offset))
            // Only whole lines: a line being written is read at the next poll.
            guard let data = try handle.read(upToCount: min(Int(size) - log.offset, 8 << 20)),
                let end = data.lastIndex(of: UInt8(ascii: "\n"))
            else { return }
            let text = String(decoding: data[...end], as: UTF8.self)
            log.read(Substring(text), bytes: end - data.startIndex + 1, zones: running ?? .empty, groups: applied?.groups ?? [])
            actions = log
        } catch {
            return
        }
    }

    private static func version(in status: String) -> String? {
        status.split(separator: "\n").first { $0.hasPrefix("version:") }.map { $0.dropFirst(8).trimmingCharacters(in: .whitespaces) }
    }

    private static func describe(_ lan: LANBlock) -> String {
        let targets = lan.targets.keys.sorted()
        guard !targets.isEmpty else { return "nothing" }
        return targets.map { target in
            let names = lan.rules(for: target).reduce(0) { $0 + $1.block.count }
            return "\(target): \(names) names"
        }.joined(separator: ", ")
    }

    private static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    private func lock() async {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
    }

    private func unlock() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

/// Why the Unbound enforcer cannot work with this Unbound.
public enum UnboundEnforcerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Unbound does not know the views the include file declares.
    case includeNotRead(path: String)

    public var description: String {
        switch self {
        case .includeNotRead(let path):
            "Unbound does not read \(path): include it at top level of unbound.conf (include-toplevel: \"\(path)\") and restart Unbound"
        }
    }
}
