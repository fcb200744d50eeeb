import Foundation
import Glibc
import LockCore
import LockPlatform

/// The hosts file as a normal user's resolver sees it, for `lockctl doctor`: whether it is a
/// regular file other users can reach and read, and whether each blocked name comes out as
/// `0.0.0.0`/`::` when the file is parsed the way glibc does and the way musl does.
///
/// Runs with the daemon's privileges, so readability is judged from the modes (the file and
/// every directory above it), not by trying: root reads a file of mode 000 without trouble
/// while nobody else can.
public struct HostsFileInspection: Sendable {
    /// The hosts file.
    public let path: String

    /// Prepares an inspection of the hosts file at `path`.
    public init(path: String) { self.path = path }

    /// What one lookup of one name found.
    public struct Lookup: Sendable, Equatable {
        /// The addresses the lines naming it give, in file order.
        public var addresses: [String]
        /// The first line mapping it elsewhere than `0.0.0.0`, `::` or loopback, if any.
        public var overriddenBy: String?
        /// True when every address found blocks (`0.0.0.0`, `::`, loopback) and there is one.
        public var isBlocked: Bool { !addresses.isEmpty && overriddenBy == nil }
    }

    /// The first thing that keeps `names` from being blocked for other users' programs, or
    /// that would once a block starts; nil when there is nothing to report. Findings are
    /// problems while names are to be blocked and warnings otherwise.
    public func problem(names: [String]) -> Finding? {
        let blocking = !names.isEmpty
        let severity: Finding.Severity = blocking ? .problem : .warning
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard blocking else { return nil }
            return Finding(
                "hosts file", .problem, "\(path) does not exist while \(names.count) names should be blocked",
                fix: "the daemon recreates it within a second; if it does not, see `journalctl -u simplylockd`")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK:
            return Finding(
                "hosts file", severity, "\(path) is a symbolic link; blocking replaces it with a regular file",
                fix: "point the link's users at \(path) itself, or manage the link's target")
        case S_IFDIR:
            return Finding(
                "hosts file", severity, "\(path) is a directory, so no name is looked up in it",
                fix: "the daemon moves it aside (\(path).simplylock-moved-TIME) while a block is active")
        default:
            return Finding("hosts file", severity, "\(path) is not a regular file", fix: "replace it with a regular file")
        }
        if info.st_mode & 0o004 == 0 {
            return Finding(
                "hosts file", severity,
                "\(path) (mode \(String(info.st_mode & 0o7777, radix: 8))) cannot be read by other users: their programs ignore it, so nothing is blocked for them",
                fix: "chmod 0644 \(path) (the daemon does so while a block is active)")
        }
        if let closed = closedDirectory() {
            return Finding(
                "hosts file", severity, "\(closed) cannot be searched by other users, so they cannot read \(path)",
                fix: "chmod o+x \(closed)")
        }
        if info.st_mode & 0o002 != 0 {
            return Finding("hosts file", .warning, "\(path) can be changed by every user", fix: "chmod o-w \(path)")
        }
        guard blocking else { return nil }
        guard let bytes = try? AtomicFile.read(path) else {
            return Finding("hosts file", .problem, "\(path) cannot be read", fix: "check the file's permissions")
        }
        let listed = HostsDocument.listable(names)
        let glibc = HostsFileInspection.glibcView(bytes, names: listed)
        if let (name, lookup) = listed.lazy.compactMap({ name in glibc[name].map { (name, $0) } }).first(where: { $0.1.overriddenBy != nil }
        ),
            let line = lookup.overriddenBy
        {
            return Finding(
                "hosts file", .problem, "your own entry \"\(line)\" maps blocked \(name) to a real address, and programs use it",
                fix: "remove that line from \(path) while you want \(name) blocked")
        }
        let unblocked = listed.filter { glibc[$0]?.isBlocked != true || glibc[$0 + "."]?.isBlocked != true }
        if !unblocked.isEmpty {
            return Finding(
                "hosts file", .problem,
                "\(unblocked.count) of \(listed.count) names do not resolve to 0.0.0.0 for glibc (\(HostsFileInspection.sample(unblocked)))",
                fix: "the daemon rewrites the section within a second of a change; if this persists, see `journalctl -u simplylockd`")
        }
        let musl = HostsFileInspection.muslView(bytes)
        let lost = listed.filter { !musl.contains($0) || !musl.contains($0 + ".") }
        if !lost.isEmpty {
            return Finding(
                "hosts file", .problem,
                "\(lost.count) names stand past byte 511 of their line, where musl (Alpine, static programs) does not read (\(HostsFileInspection.sample(lost)))",
                fix: "shorten the lines of \(path) to under 512 bytes")
        }
        return nil
    }

    /// Why programs would not read the hosts file before asking DNS, from the `hosts:` line of
    /// nsswitch.conf beside it: nil when `files` (or `resolve`: systemd-resolved reads the file
    /// itself) comes before `dns`, or when there is no such file or line to judge by.
    public static func nsswitchProblem(hostsPath: String) -> String? {
        let nsswitch = (hostsPath as NSString).deletingLastPathComponent + "/nsswitch.conf"
        guard let bytes = try? AtomicFile.read(nsswitch) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let content = line.prefix { $0 != "#" }
            guard content.hasPrefix("hosts:") else { continue }
            let sources = content.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" })
                .filter { !$0.hasPrefix("[") && !$0.hasSuffix("]") }
            let hosts = sources.firstIndex { $0 == "files" || $0 == "resolve" }
            let dns = sources.firstIndex(of: "dns")
            switch (hosts, dns) {
            case (nil, _): return "\(nsswitch) does not list files on its hosts: line, so programs never read the hosts file"
            case (let hosts?, let dns?) where dns < hosts: return "\(nsswitch) asks dns before files on its hosts: line"
            default: return nil
            }
        }
        return nil
    }

    /// The first directory above the file that other users cannot search, if any.
    func closedDirectory() -> String? {
        var directory = (path as NSString).deletingLastPathComponent
        while !directory.isEmpty {
            var info = stat()
            if stat(directory, &info) == 0, info.st_mode & 0o001 == 0 { return directory }
            if directory == "/" { break }
            directory = (directory as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// What glibc's files backend answers for each of `names` and its trailing-dot form: the
    /// line is cut at `#`, split at blanks, the first field must parse as an address
    /// (`inet_pton`), and names compare without regard to case.
    public static func glibcView(_ bytes: [UInt8], names: [String]) -> [String: Lookup] {
        var wanted: [String: Lookup] = [:]
        for name in names {
            wanted[name.lowercased()] = Lookup(addresses: [])
            wanted[name.lowercased() + "."] = Lookup(addresses: [])
        }
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let content = line.prefix { $0 != UInt8(ascii: "#") }
            let fields = content.split(whereSeparator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) })
            guard fields.count >= 2, let address = canonicalAddress(String(decoding: fields[0], as: UTF8.self)) else { continue }
            for field in fields.dropFirst() {
                let name = String(decoding: field, as: UTF8.self).lowercased()
                guard var lookup = wanted[name] else { continue }
                lookup.addresses.append(address)
                if lookup.overriddenBy == nil, !blocks(address) {
                    lookup.overriddenBy = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                wanted[name] = lookup
            }
        }
        return wanted
    }

    /// The names musl finds: it reads lines with `fgets` into 512 bytes, so only names that
    /// end, blank included, within the first 511 bytes of a line whose first field is an
    /// address count.
    public static func muslView(_ bytes: [UInt8]) -> Set<String> {
        var found = Set<String>()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            // The first 511 bytes, and the newline if it fits.
            var chunk = Array(line.prefix(HostsDocument.maxLineBytes))
            if line.count < HostsDocument.maxLineBytes { chunk.append(UInt8(ascii: "\n")) }
            if let comment = chunk.firstIndex(of: UInt8(ascii: "#")) { chunk = Array(chunk[..<comment]) + [UInt8(ascii: "\n")] }
            let isSpace = { (byte: UInt8) in byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
            // The address is what precedes the first blank: a line starting with one has none.
            guard let first = chunk.first, !isSpace(first) else { continue }
            // A name is matched only with a blank after it inside the buffer.
            guard let lastBlank = chunk.lastIndex(where: isSpace) else { continue }
            let fields = chunk[..<lastBlank].split(whereSeparator: isSpace)
            guard fields.count >= 2, canonicalAddress(String(decoding: fields[0], as: UTF8.self)) != nil else { continue }
            for field in fields.dropFirst() { found.insert(String(decoding: field, as: UTF8.self)) }
        }
        return found
    }

    private static func canonicalAddress(_ text: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return text }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return String(cString: buffer)
        }
        return nil
    }

    /// `0.0.0.0`, `::` and loopback: a name mapped there is unreachable.
    private static func blocks(_ address: String) -> Bool {
        address == "0.0.0.0" || address == "::" || address == "::1" || address.hasPrefix("127.")
    }

    private static func sample(_ names: [String]) -> String {
        names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
    }
}
