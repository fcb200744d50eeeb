import Foundation
import GRDB
import LockCore

/// An active session as a row of `activeSession`.
struct SessionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "activeSession"

    var id: String
    var profile: String
    var origin: String
    var strict: Bool
    /// The target's names joined by commas (`local`, `kids,office`).
    var target: String
    var startedAt: Date
    var endBoot: Int64
    var bootID: String
    var checkpointRemaining: Int64
    var checkpointWall: Date
    var pendingOffSince: Date?
    var pendingResumedAt: Int64?
    var rules: Data
    /// The friction policy the session started with (null in rows from before it was kept).
    var frictionDelayNanoseconds: Int64?
    var frictionTyping: Int?
    var frictionPerWeek: Int?

    init(_ session: Session) throws {
        id = session.id
        profile = session.profile
        origin = session.origin.rawValue
        strict = session.strict
        target = session.target.description
        startedAt = session.startedAt
        endBoot = session.endBoot.nanoseconds
        bootID = session.bootID
        checkpointRemaining = session.checkpointRemaining.nanosecondsClamped
        checkpointWall = session.checkpointWall
        pendingOffSince = session.pendingOffTime?.since
        pendingResumedAt = session.pendingOffTime?.resumedAt.nanoseconds
        rules = try StateStore.encoder.encode(StoredRules(session.rules))
        frictionDelayNanoseconds = session.friction?.delay.nanosecondsClamped
        frictionTyping = session.friction?.typing
        frictionPerWeek = session.friction?.perWeek
    }

    func session() throws -> Session {
        guard let origin = SessionOrigin(rawValue: origin) else {
            throw DatabaseError(message: "session \(id) has an unknown origin \"\(self.origin)\"")
        }
        let rules = try StateStore.decoder.decode(StoredRules.self, from: rules).rules()
        let target: BlockTarget
        do { target = try BlockTarget(parsing: self.target.split(separator: ",").map(String.init)) } catch {
            throw DatabaseError(message: "session \(id) has an invalid target \"\(self.target)\": \(error)")
        }
        var session = Session(
            id: id, profile: profile, origin: origin, strict: strict, rules: rules,
            duration: .nanoseconds(checkpointRemaining),
            now: ClockReading(wall: checkpointWall, boot: BootTime(nanoseconds: 0), bootID: bootID), target: target)
        session.startedAt = startedAt
        session.endBoot = BootTime(nanoseconds: endBoot)
        if let since = pendingOffSince, let resumedAt = pendingResumedAt {
            session.pendingOffTime = Session.PendingOffTime(since: since, resumedAt: BootTime(nanoseconds: resumedAt))
        }
        if let delay = frictionDelayNanoseconds, let typing = frictionTyping, let perWeek = frictionPerWeek {
            session.friction = FrictionPolicy(delay: .nanoseconds(delay), typing: typing, perWeek: perWeek)
        }
        return session
    }
}

/// A session's rules as the store keeps them.
struct StoredRules: Codable {
    /// Names and addresses one per line: a profile of 100 000 names as a JSON array took a
    /// fifth of the time of a `lockctl start`, as one string a fiftieth. In no particular
    /// order: the sets they are read into do not need one. Rows written before hold arrays,
    /// which are read as ever.
    var block: String
    var allow: String
    var addresses: String
    var mode: String
    /// The imported list versions the session holds (absent in sessions saved before lists).
    var lists: [BlocklistReference]?
    /// Absent in rows written before apps could be blocked.
    var apps: [BlockedApp]?
    var missingApps: [String]?
    /// Path rules for the browser companion (absent when none, and in rows written before them).
    var paths: [PathRule]?
    var allowPaths: [PathRule]?
    var keywords: [KeywordRule]?

    init(_ rules: BlockRules) {
        block = Self.lines(rules.block)
        allow = Self.lines(rules.allow)
        addresses = rules.addresses.map(\.description).joined(separator: "\n")
        mode = rules.mode.rawValue
        lists = rules.lists.isEmpty ? nil : rules.lists
        apps = rules.apps.isEmpty ? nil : rules.apps
        missingApps = rules.missingApps.isEmpty ? nil : rules.missingApps
        paths = rules.paths.isEmpty ? nil : rules.paths
        allowPaths = rules.allowPaths.isEmpty ? nil : rules.allowPaths
        keywords = rules.keywords.isEmpty ? nil : rules.keywords
    }

    private static func lines(_ set: DomainSet) -> String {
        var text = ""
        text.reserveCapacity(set.count * 24)
        set.forEach { name in
            if !text.isEmpty { text += "\n" }
            text += name
        }
        return text
    }

    private enum CodingKeys: String, CodingKey { case block, allow, addresses, mode, lists, apps, missingApps, paths, allowPaths, keywords }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func lines(_ key: CodingKeys) throws -> String {
            if let joined = try? container.decode(String.self, forKey: key) { return joined }
            return try container.decode([String].self, forKey: key).joined(separator: "\n")
        }
        block = try lines(.block)
        allow = try lines(.allow)
        addresses = try lines(.addresses)
        mode = try container.decode(String.self, forKey: .mode)
        lists = try container.decodeIfPresent([BlocklistReference].self, forKey: .lists)
        apps = try container.decodeIfPresent([BlockedApp].self, forKey: .apps)
        missingApps = try container.decodeIfPresent([String].self, forKey: .missingApps)
        paths = try container.decodeIfPresent([PathRule].self, forKey: .paths)
        allowPaths = try container.decodeIfPresent([PathRule].self, forKey: .allowPaths)
        keywords = try container.decodeIfPresent([KeywordRule].self, forKey: .keywords)
    }

    func rules() throws -> BlockRules {
        func split(_ text: String) -> [Substring] { text.split(separator: "\n") }
        var networks: [IPNetwork] = []
        for text in split(addresses) { networks.append(try IPNetwork(parsing: String(text))) }
        guard let mode = ProfileMode(rawValue: mode) else { throw DatabaseError(message: "unknown profile mode \"\(mode)\"") }
        for reference in lists ?? [] where !BlocklistReference.isVersion(reference.version) {
            throw DatabaseError(message: "list \(reference.name) has no valid version \"\(reference.version)\"")
        }
        var rules = BlockRules(
            block: DomainSet(split(block).lazy.map(String.init)), allow: DomainSet(split(allow).lazy.map(String.init)), addresses: networks,
            mode: mode, apps: apps ?? [],
            missingApps: missingApps ?? [], lists: lists ?? [])
        rules.paths = paths ?? []
        rules.allowPaths = allowPaths ?? []
        rules.keywords = keywords ?? []
        return rules
    }
}
