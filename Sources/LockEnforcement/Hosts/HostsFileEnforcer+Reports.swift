import Foundation
import Glibc
import LockCore
import LockPlatform

/// What the hosts enforcer reports without changing anything: what it covers, its status, and
/// the file as the machine's resolvers read it. Kept apart from the writing and restoring.
extension HostsFileEnforcer {
    public nonisolated var scope: EnforcerScope? {
        EnforcerScope(
            covers: "exact names only, each with its www. twin and trailing-dot form, for programs that read \(path)",
            misses: "subdomains and imported lists need the dns enforcer; browsers using DNS over HTTPS skip the file")
    }

    public func coverage(of name: String) async -> Coverage? {
        var exact = name.lowercased()
        let trailingDot = exact.hasSuffix(".")
        if trailingDot { exact.removeLast() }
        guard inForce, lastError == nil, blocking else {
            return .doesNotCover(lastError.map { "the section is not in force: \($0)" } ?? "nothing is listed in \(path)")
        }
        if isListed(exact) {
            // Listed is not blocked: the file as glibc reads it now decides.
            if let reason = lookupProblem(exact) { return .doesNotCover(reason) }
            return .blocks("listed in \(path)" + (trailingDot ? " (with its trailing-dot form)" : ""))
        }
        if let capped, capped.contains(exact) {
            return .doesNotCover("blocked, but beyond hosts_max_names: the section lists the first \(maxNames) of \(capped.count) names")
        }
        var parent = Substring(exact)
        while let dot = parent.firstIndex(of: ".") {
            parent = parent[parent.index(after: dot)...]
            if isListed(String(parent)) {
                return .doesNotCover("\(parent) is listed, but a hosts file holds exact names only: names under it need the dns enforcer")
            }
        }
        return .doesNotCover("not listed in \(path)")
    }

    /// Why a listed `name` does not come out as `0.0.0.0`/`::` for glibc on this machine; nil
    /// when it does. Read from the file as it is now: a line of the user's own for the name with
    /// a real address (glibc's `getaddrinfo` returns every matching line, the first ones first,
    /// and programs try the next address when `0.0.0.0` refuses), or no section (being restored).
    func lookupProblem(_ name: String) -> String? {
        guard let bytes = try? AtomicFile.read(path) else { return "\(path) cannot be read" }
        let view = HostsFileInspection.glibcView(bytes, names: [name])
        for form in [name, name + "."] {
            guard let lookup = view[form] else { continue }
            if let line = lookup.overriddenBy {
                return "listed in \(path), but the line \"\(line)\" maps \(form) to a real address, and programs use it"
            }
            if !lookup.isBlocked { return "not in \(path) as glibc reads it now (the section is being restored)" }
        }
        if let order = HostsFileInspection.nsswitchProblem(hostsPath: path) { return "listed in \(path), but \(order)" }
        return nil
    }

    public func status() async -> EnforcerStatus {
        var details: [String: EnforcerStatus.Detail] = ["path": .text(path), "restores": .count(restores), "maxNames": .count(maxNames)]
        if let capped {
            details["capped"] = .text(
                "lists the first \(maxNames) of \(capped.count) names (hosts_max_names); the dns and nftables enforcers block them all")
        }
        if let lastMethod { details["write"] = .text(lastMethod.rawValue) }
        if let lastRepair { details["lastRepair"] = .text(lastRepair) }
        // Counted in `elements` beside the blocked names, so clients can say which is which.
        if blocking, !alwaysWithBlock.isEmpty { details["alsoListed"] = .text(alwaysWithBlock.joined(separator: ", ")) }
        return EnforcerStatus(
            name: name, applied: inForce && lastError == nil, elements: desiredCount,
            lastApplied: lastApplied, lastError: lastError, details: details)
    }

    /// Checks the file as the machine's resolvers see it: the section the active blocks need,
    /// and no entry of the user's own that maps a blocked name to a real address (the user's
    /// entries come first in lookups, so one defeats the block).
    public func diagnose() async -> [Finding] {
        [await fileFinding()] + movedAsideFinding()
    }

    /// Things that were in the file's place (directories, FIFOs) and were moved aside during
    /// blocks: never deleted, since they may hold someone's files, so doctor lists them.
    private nonisolated func movedAsideFinding() -> [Finding] {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".simplylock-moved-"
        let moved = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
        guard !moved.isEmpty else { return [] }
        let paths = moved.map { directory + "/" + $0 }
        let shown = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
        return [
            Finding(
                "hosts file", .warning,
                "\(CountText.of(moved.count, "thing was", "things were")) in \(path)'s place and moved aside: \(shown)",
                fix: "look inside, then remove what you do not need: rm -r \(directory)/\(prefix)*")
        ]
    }

    private func fileFinding() async -> Finding {
        let subject = "hosts file"
        // What other users' resolvers see: file type, modes, and glibc's and musl's reading.
        let desired = desired
        if let problem = HostsFileInspection(path: path).problem(names: desired) { return problem }
        if let flags = InodeFlags.of(path), flags.immutable || flags.appendOnly {
            // Even root cannot replace or rewrite it: every start and end of a block would fail.
            let (what, flag) = flags.immutable ? ("immutable", "i") : ("append-only", "a")
            return Finding(
                subject, .problem, "\(path) is \(what) (chattr +\(flag)): simplylockd cannot change it, so no block can start or end",
                fix: "chattr -\(flag) \(path)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard access(directory, W_OK) == 0 || access(path, W_OK) == 0 else {
            return Finding(
                subject, .problem, "\(path) cannot be written by simplylockd",
                fix: "make \(directory) writable for the daemon (ReadWritePaths=/etc in the unit)")
        }
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(path) ?? [] } catch {
            return Finding(subject, .problem, error.description, fix: "check the file's permissions")
        }
        let document = HostsDocument(bytes: bytes)
        if document.rendered(names: desired) != bytes {
            let text = String(decoding: bytes, as: UTF8.self)
            let begins = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces) == HostsDocument.beginMarker }.count
            let what =
                begins > 1
                ? "has \(begins) managed sections"
                : (desired.isEmpty
                    ? "still has a managed section although nothing is blocked" : "does not have the section the active blocks need")
            return Finding(
                subject, .problem, "\(path) \(what)",
                fix:
                    "the daemon rewrites it on every change and within a second of an edit; if this persists, see `journalctl -u simplylockd`"
            )
        }
        for line in String(decoding: document.userBytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix { !$0.hasPrefix("#") }
            guard let address = fields.first, address != "0.0.0.0", address != "::", address != "127.0.0.1", address != "::1" else {
                continue
            }
            if let name = fields.dropFirst().first(where: { isListed(String($0).lowercased()) }) {
                return Finding(
                    subject, .problem,
                    "your own entry \"\(line.trimmingCharacters(in: .whitespaces))\" maps blocked \(name) to a real address",
                    fix: "remove that line from \(path) while you want \(name) blocked")
            }
        }
        if !desired.isEmpty, let order = HostsFileInspection.nsswitchProblem(hostsPath: path) {
            return Finding(subject, .problem, order, fix: "put files (or resolve) before dns on the hosts: line of nsswitch.conf")
        }
        return Finding(
            subject, .ok,
            desired.isEmpty ? "\(path): nothing blocked, no managed section" : "\(path): managed section in place, \(desired.count) names")
    }
}
