import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// Imported blocklists through the real simplylockd and lockctl: files and standard input,
/// what `lists show` reports, restarts, removal, and the real EasyList and EasyPrivacy that
/// Debian ships in its uBlock Origin package (fetched here, never committed).
///
/// The daemon runs `hosts,dns` under a scratch root: its DNS filter listens on a free loopback
/// port and is asked directly with dig (without nftables nothing redirects the machine's DNS
/// there, which `check` says). Its upstream is a closed loopback port, so no query leaves the
/// machine.
@Suite("blocklists through the real daemon")
struct BlocklistTests {
    static let digMissing: String? = TestTools.missing {
        TestTools.which("dig") == nil ? "dig is not installed (apt-get install dnsutils)" : nil
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A daemon with the DNS filter on a port of its own.
    static func daemon() throws -> (DaemonProcess, UInt16) {
        let root = try TestRoot()
        let port = freePort()
        try root.write("etc/simplylock/simplylockd.toml", "dns_port = \(port)\nresolvers = [\"127.0.0.1:9\"]\n")
        return (try DaemonProcess(root: root, arguments: ["--enforcers", "hosts,dns"]), port)
    }

    static func dig(_ name: String, port: UInt16) throws -> String {
        try ProcessRunner.run(
            TestTools.which("dig") ?? "dig", ["+short", "+time=1", "+tries=1", "-p", "\(port)", "@127.0.0.1", name], timeout: 10
        ).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "a list imported from a file or standard input blocks its names and subdomains in the blocks of profiles naming it, across a restart, until removed",
        .enabled(if: digMissing == nil, "\(digMissing ?? "")"))
    func listsFromFilesAndStandardInput() throws {
        let (daemon, port) = try Self.daemon()
        let root = daemon.root
        try root.write("ads.txt", "! ads\n||ads.test^\n||tracker.test^$third-party\n@@||ok.ads.test^\n0.0.0.0 hosts.test\n")
        let imported = try daemon.lockctl("lists", "import", "ads", root.path + "/ads.txt")
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("list ads imported: 2 names, 1 exception from 5 lines (1 rule skipped)"), "\(imported.stdout)")
        #expect(imported.stdout.contains("$options"), "the skipped rule is explained")
        let piped = try ProcessRunner.run(
            "/bin/sh", ["-c", "printf 'more.test\\nexample.com##.ad\\n' | '\(Binaries.lockctl)' --root '\(root.path)' lists import more -"])
        #expect(piped.status == 0, "\(piped)")

        let shown = try daemon.decode(ListInfo.self, "lists", "show", "ads")
        #expect(shown.names == 2 && shown.exceptions == 1 && shown.lines == 5)
        #expect(shown.source == root.path + "/ads.txt")
        #expect(shown.skippedByReason.first?.reason == "options")
        #expect(try daemon.decode(ListList.self, "lists", "list").lists.map(\.name) == ["ads", "more"])
        #expect(try daemon.decode(ListInfo.self, "lists", "show", "more").source == "-")

        #expect(try daemon.lockctl("profiles", "create", "focus", "--domain", "reddit.com", "--list", "ads", "--list", "more").status == 0)
        #expect(try daemon.lockctl("profiles", "create", "ghost", "--list", "nope").status == 2)
        #expect(try daemon.lockctl("start", "focus", "10m").status == 0)
        #expect(try Self.dig("m.ads.test", port: port) == "0.0.0.0")
        #expect(try Self.dig("a.b.more.test", port: port) == "0.0.0.0")
        #expect(try Self.dig("x.hosts.test", port: port) == "0.0.0.0")
        #expect(try Self.dig("ok.ads.test", port: port) != "0.0.0.0", "the list's exception is forwarded")
        #expect(!root.hosts().contains("ads.test"), "list names never go to the hosts file")

        let check = try daemon.lockctl("check", "m.ads.test", "--json")
        #expect(check.status == 1, "without nftables nothing sends the machine's DNS to the filter: \(check.stdout)")
        let answer = try check.decode(CheckResponse.self)
        #expect(answer.matches.first?.list == "ads" && answer.matches.first?.rule == "ads.test")
        let enforcers = answer.enforcers
        #expect(enforcers.map(\.name) == ["hosts", "dns"])
        #expect(enforcers.last?.detail.contains("rule ads.test of list ads") == true, "\(enforcers)")
        #expect(try daemon.lockctl("check", "reddit.com").status == 0, "the hosts file blocks the exact name")

        try daemon.kill9()
        try daemon.restart()
        #expect(try Self.dig("m.ads.test", port: port) == "0.0.0.0", "the list is loaded again and the block holds it")
        #expect(try daemon.decode(ListInfo.self, "lists", "show", "ads").version == shown.version)

        let removed = try daemon.lockctl("lists", "remove", "ads")
        #expect(removed.status == 0, "\(removed)")
        #expect(try Self.dig("m.ads.test", port: port) != "0.0.0.0")
        #expect(try Self.dig("m.more.test", port: port) == "0.0.0.0")
        #expect(try daemon.lockctl("lists", "show", "ads").status == 6)
        let doctor = try daemon.lockctl("doctor")
        #expect(doctor.stdout.contains("profiles name lists that are not imported: ads (named by focus)"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("hosts: exact names only"), "\(doctor.stdout)")
        try daemon.stop()
    }

    // MARK: - EasyList and EasyPrivacy

    /// Debian's uBlock Origin package, unpacked under .build/test-data; nil with why when it
    /// cannot be had (no apt, no network).
    static let ublock: (directory: String?, problem: String?) = {
        let base = TestTools.repository + "/.build/test-data/ublock"
        let lists =
            base
            + "/unpacked/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/thirdparties/easylist"
        if access(lists + "/easylist.txt", R_OK) == 0, access(lists + "/easyprivacy.txt", R_OK) == 0 { return (lists, nil) }
        guard TestTools.which("apt-get") != nil, TestTools.which("dpkg-deb") != nil else { return (nil, "apt-get and dpkg-deb are needed") }
        let script = """
            set -e; mkdir -p '\(base)'; cd '\(base)'; rm -rf unpacked *.deb
            apt-get download webext-ublock-origin-firefox >download.log 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get download webext-ublock-origin-firefox >download.log 2>&1; }
            dpkg-deb -x webext-ublock-origin-firefox_*.deb unpacked
            """
        let result = try? ProcessRunner.run("/bin/sh", ["-c", script], timeout: 300)
        guard result?.status == 0, access(lists + "/easylist.txt", R_OK) == 0 else {
            let log = (try? String(contentsOfFile: base + "/download.log", encoding: .utf8)) ?? ""
            return (nil, "cannot fetch Debian's webext-ublock-origin-firefox: \(result?.stderr ?? "") \(log.suffix(300))")
        }
        return (lists, nil)
    }()

    static let ublockMissing: String? = TestTools.missing { ublock.problem ?? digMissing }

    /// The names of `||name^` rules, as a reference the daemon's count is weighed against:
    /// lowercase, names under another listed name left out.
    static func plainRules(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var names = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("||") && line.hasSuffix("^") {
            let name = line.dropFirst(2).dropLast().lowercased()
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count > 1,
                labels.allSatisfy({ label in
                    !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-" && !label.dropFirst(2).hasPrefix("--")
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                }), labels.last?.allSatisfy(\.isNumber) == false
            else { continue }
            names.insert(name)
        }
        return names.filter { name in
            var parent = Substring(name)
            while let dot = parent.firstIndex(of: ".") {
                parent = parent[parent.index(after: dot)...]
                if names.contains(String(parent)) { return false }
            }
            return true
        }.sorted()
    }

    @Test(
        "EasyList and EasyPrivacy from Debian's uBlock Origin package: about 84 000 names, every skipped rule counted, known names blocked",
        .enabled(if: ublockMissing == nil, "\(ublockMissing ?? "")"))
    func easyListAndEasyPrivacy() throws {
        let directory = try #require(Self.ublock.directory, "\(Self.ublock.problem ?? "")")
        let (daemon, port) = try Self.daemon()
        var total = 0
        var known: [(list: String, name: String)] = []
        for list in ["easylist", "easyprivacy"] {
            let path = directory + "/\(list).txt"
            let reference = try Self.plainRules(path)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            let imported = try daemon.lockctl("lists", "import", list, path, "--json")
            #expect(imported.status == 0, "\(imported)")
            let info = try daemon.decode(ListInfo.self, "lists", "show", list)
            let names = info.names
            total += names
            #expect(abs(names - reference.count) <= reference.count / 50, "\(list): \(names) names, \(reference.count) plain ||name^ rules")
            #expect(abs(info.lines - lines) <= 1, "every line is read")
            let reasons = Set(info.skippedByReason.map(\.reason))
            #expect(reasons.isSuperset(of: ["options", "path"]), "\(list): \(reasons)")
            #expect(info.skipped > 1000)
            for index in [0, reference.count / 2, reference.count - 1] { known.append((list, reference[index])) }
        }
        #expect(total > 75_000 && total < 95_000, "about 84 000 names in both: \(total)")
        #expect(try daemon.lockctl("profiles", "create", "ads", "--list", "easylist", "--list", "easyprivacy").status == 0)
        #expect(try daemon.lockctl("start", "ads", "30m").status == 0)
        for (list, name) in known {
            for asked in [name, "deep.sub." + name] {
                let check = try daemon.lockctl("check", asked, "--json")
                let match = try check.decode(CheckResponse.self).matches.first
                #expect(match?.rule == name && match?.list == list, "\(asked): \(check.stdout)")
                #expect(try Self.dig(asked, port: port) == "0.0.0.0", "\(asked)")
            }
        }
        let dns = try daemon.decode(StatusResponse.self, "status").enforcers.first { $0.name == "dns" }
        #expect((dns?.elements ?? 0) >= total)
        try daemon.stop()
    }
}
