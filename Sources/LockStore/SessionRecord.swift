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
        return session
    }
}

/// A session's rules as the store keeps them.
struct StoredRules: Codable {
    var block: [String]
    var allow: [String]
    var addresses: [String]
    var mode: String
    /// The imported list versions the session holds (absent in sessions saved before lists).
    var lists: [BlocklistReference]?
    /// Absent in rows written before apps could be blocked.
    var apps: [BlockedApp]?
    var missingApps: [String]?

    init(_ rules: BlockRules) {
        block = rules.block.sorted
        allow = rules.allow.sorted
        addresses = rules.addresses.map(\.description)
        mode = rules.mode.rawValue
        lists = rules.lists.isEmpty ? nil : rules.lists
        apps = rules.apps.isEmpty ? nil : rules.apps
        missingApps = rules.missingApps.isEmpty ? nil : rules.missingApps
    }

    private enum CodingKeys: String, CodingKey { case block, allow, addresses, mode, lists, apps, missingApps }

    /// Names and addresses are written as one newline-separated string each: a profile of
    /// 100 000 names as a JSON array took a fifth of the time of a `lockctl start`, as one
    /// string a fiftieth. Rows written before hold arrays, which are read as ever.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(block.joined(separator: "\n"), forKey: .block)
        try container.encode(allow.joined(separator: "\n"), forKey: .allow)
        try container.encode(addresses.joined(separator: "\n"), forKey: .addresses)
        try container.encode(mode, forKey: .mode)
        try container.encodeIfPresent(lists, forKey: .lists)
        try container.encodeIfPresent(apps, forKey: .apps)
        try container.encodeIfPresent(missingApps, forKey: .missingApps)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func lines(_ key: CodingKeys) throws -> [String] {
            if let joined = try? container.decode(String.self, forKey: key) {
                return joined.isEmpty ? [] : joined.split(separator: "\n").map(String.init)
            }
            return try container.decode([String].self, forKey: key)
        }
        block = try lines(.block)
        allow = try lines(.allow)
        addresses = try lines(.addresses)
        mode = try container.decode(String.self, forKey: .mode)
        lists = try container.decodeIfPresent([BlocklistReference].self, forKey: .lists)
        apps = try container.decodeIfPresent([BlockedApp].self, forKey: .apps)
        missingApps = try container.decodeIfPresent([String].self, forKey: .missingApps)
    }

    func rules() throws -> BlockRules {
        var networks: [IPNetwork] = []
        for text in addresses { networks.append(try IPNetwork(parsing: text)) }
        guard let mode = ProfileMode(rawValue: mode) else { throw DatabaseError(message: "unknown profile mode \"\(mode)\"") }
        for reference in lists ?? [] where !BlocklistReference.isVersion(reference.version) {
            throw DatabaseError(message: "list \(reference.name) has no valid version \"\(reference.version)\"")
        }
        return BlockRules(
            block: DomainSet(block), allow: DomainSet(allow), addresses: networks, mode: mode, apps: apps ?? [],
            missingApps: missingApps ?? [], lists: lists ?? [])
    }
}
