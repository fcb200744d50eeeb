import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

/// The rendered hosts file read by real resolvers: glibc (`getaddrinfo` and `getent`) and
/// musl (a static `getaddrinfo` program built with musl-gcc), each in a private mount and
/// network namespace with the file bind-mounted over /etc/hosts (never the machine's own).
///
/// Issue 9, item 12: musl dropped the names past byte 511 of a line (91 of 272 names), and
/// `reddit.com.` resolved normally through both because only `reddit.com` was listed.
@Suite(.enabled(if: ResolverTools.namespaces, "needs root and unshare(1) for a private mount namespace"))
struct HostsResolverTests {
    static let cc = ResolverTools.cc
    static let muslGCC = ResolverTools.muslGCC

    /// Prints, for each argument, `NAME IPV4 IPV6` as getaddrinfo answers (`-` for none).
    static let lookupProgram = """
        #include <arpa/inet.h>
        #include <netdb.h>
        #include <netinet/in.h>
        #include <stdio.h>
        #include <string.h>
        #include <sys/socket.h>
        int main(int argc, char **argv) {
            int families[2] = {AF_INET, AF_INET6};
            for (int i = 1; i < argc; i++) {
                printf("%s", argv[i]);
                for (int f = 0; f < 2; f++) {
                    struct addrinfo hints, *result = 0;
                    memset(&hints, 0, sizeof hints);
                    hints.ai_family = families[f];
                    hints.ai_socktype = SOCK_STREAM;
                    if (getaddrinfo(argv[i], 0, &hints, &result) != 0 || !result) { printf(" -"); continue; }
                    char text[64];
                    void *address = families[f] == AF_INET ? (void *)&((struct sockaddr_in *)result->ai_addr)->sin_addr
                                                           : (void *)&((struct sockaddr_in6 *)result->ai_addr)->sin6_addr;
                    inet_ntop(families[f], address, text, sizeof text);
                    printf(" %s", text);
                    freeaddrinfo(result);
                }
                printf("\\n");
            }
            return 0;
        }
        """

    final class Workspace: @unchecked Sendable {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "simplylock-resolve-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chmod(path, 0o755)
            try Data("hosts: files\n".utf8).write(to: URL(fileURLWithPath: path + "/nsswitch.conf"))
            // musl always falls back to DNS; with no network it would wait 5 s per try.
            try Data("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".utf8).write(to: URL(fileURLWithPath: path + "/resolv.conf"))
            try Data(HostsResolverTests.lookupProgram.utf8).write(to: URL(fileURLWithPath: path + "/lookup.c"))
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func compile(_ compiler: String, _ extra: [String], output: String) throws -> String {
            let binary = path + "/" + output
            let result = try ProcessRunner.run(compiler, extra + ["-O1", "-o", binary, path + "/lookup.c"], timeout: 120)
            guard result.status == 0 else { throw TestFailure("\(compiler) failed: \(result)") }
            return binary
        }

        /// Runs `command` with `hosts` bind-mounted over /etc/hosts (and lookups limited to
        /// files), no network, in namespaces that end with it.
        func run(hosts: [UInt8], _ command: [String]) throws -> String {
            let file = path + "/hosts-\(UUID().uuidString)"
            try Data(hosts).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o644)
            let script =
                "mount --bind '\(file)' /etc/hosts && mount --bind '\(path)/nsswitch.conf' /etc/nsswitch.conf && mount --bind '\(path)/resolv.conf' /etc/resolv.conf && exec \"$0\" \"$@\""
            let result = try ProcessRunner.run(
                "/usr/bin/unshare", ["-m", "-n", "--propagation", "private", "sh", "-c", script] + command,
                timeout: 120)
            guard result.status == 0 || command.first?.hasSuffix("getent") == true else { throw TestFailure("\(command[0]): \(result)") }
            return result.stdout
        }
    }

    /// Names of many lengths, so that the lines of the section end at every distance from
    /// byte 511 and some names sit right at it; plus the longest name DNS allows.
    static let names: [String] = {
        var names = (0..<420).map { index in String(repeating: "n", count: 1 + (index * 37) % 97) + "-\(index).example" }
        names.append(
            String(repeating: "a", count: 63) + "." + String(repeating: "b", count: 63) + "."
                + String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 57) + ".com")
        names += ["reddit.com", "www.reddit.com"]
        return names
    }()

    static let rendered = HostsDocument(bytes: Array("127.0.0.1 localhost\n::1 localhost\n".utf8)).rendered(names: names)

    /// The names, each with its trailing-dot form, that `output` does not show as 0.0.0.0 and ::.
    static func unblocked(_ output: String, expected: [String]) -> [String] {
        var answers: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3 { answers[String(fields[0])] = "\(fields[1]) \(fields[2])" }
        }
        return expected.filter { answers[$0] != "0.0.0.0 ::" }
    }

    static var queries: [String] { names.flatMap { [$0, $0 + "."] } }

    @Test func sectionLinesEndNearTheLimit() {
        let lines = Self.rendered.split(separator: UInt8(ascii: "\n")).map { $0.count + 1 }
        #expect(lines.allSatisfy { $0 <= 511 })
        // Names sit right at the limit: several lines end within 10 bytes of it.
        #expect(lines.filter { $0 >= 501 }.count >= 5, "\(lines.sorted().suffix(10))")
    }

    @Test(.enabled(if: ResolverTools.cc != nil, "no C compiler (cc, gcc or clang) to build the glibc lookup program"))
    func glibcResolvesEveryNameAndItsTrailingDotForm() throws {
        let workspace = try Workspace()
        let program = try workspace.compile(Self.cc!, [], output: "lookup-glibc")
        let output = try workspace.run(hosts: Self.rendered, [program] + Self.queries)
        let missed = Self.unblocked(output, expected: Self.queries)
        #expect(missed.isEmpty, "\(missed.count) of \(Self.queries.count) not blocked through glibc: \(missed.prefix(5))")
        // getent, as an administrator would check it.
        for name in ["reddit.com.", Self.names[420], Self.names[420] + "."] {
            let getent = try workspace.run(hosts: Self.rendered, ["/usr/bin/getent", "ahosts", name])
            let lines = getent.split(separator: "\n")
            #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("0.0.0.0 ") || $0.hasPrefix(":: ") }, "\(name): \(getent)")
        }
    }

    @Test(.enabled(if: ResolverTools.muslGCC != nil, "musl-gcc is not installed (Debian packages musl, musl-tools, musl-dev)"))
    func muslResolvesEveryNameAndItsTrailingDotForm() throws {
        let workspace = try Workspace()
        let program = try workspace.compile(Self.muslGCC!, ["-static"], output: "lookup-musl")
        let output = try workspace.run(hosts: Self.rendered, [program] + Self.queries)
        let missed = Self.unblocked(output, expected: Self.queries)
        #expect(missed.isEmpty, "\(missed.count) of \(Self.queries.count) not blocked through musl: \(missed.prefix(5))")
    }

    // The check itself can fail: the format written before (50 names to a line, no
    // trailing-dot forms) loses the names past byte 511 through musl, and every trailing-dot
    // form through glibc.
    @Test(.enabled(if: ResolverTools.muslGCC != nil && ResolverTools.cc != nil, "needs both a C compiler and musl-gcc"))
    func theOldFormatFailsTheSameCheck() throws {
        var old = Array("127.0.0.1 localhost\n# BEGIN simplylock\n".utf8)
        var within: [String] = []
        var past: [String] = []
        let plain = Self.names.filter { $0.count <= 253 }
        for address in ["0.0.0.0", "::"] {
            for start in stride(from: 0, to: plain.count, by: 50) {
                var line = address
                for name in plain[start..<min(start + 50, plain.count)] {
                    line += " " + name
                    // musl needs the name and a blank after it within the first 511 bytes.
                    if address == "0.0.0.0" { line.utf8.count < 511 ? within.append(name) : past.append(name) }
                }
                old += Array((line + "\n").utf8)
            }
        }
        old += Array("# END simplylock\n".utf8)
        #expect(past.count > plain.count / 4)
        let workspace = try Workspace()
        let musl = try workspace.compile(Self.muslGCC!, ["-static"], output: "lookup-musl")
        let glibc = try workspace.compile(Self.cc!, [], output: "lookup-glibc")
        // A few of each kind: every name musl misses costs a DNS timeout here.
        let sample = Array(within.prefix(40)) + Array(past.prefix(3))
        let missed = Self.unblocked(try workspace.run(hosts: old, [musl] + sample), expected: sample)
        #expect(missed == Array(past.prefix(3)), "musl missed \(missed)")
        let dotted = plain.map { $0 + "." }
        #expect(Self.unblocked(try workspace.run(hosts: old, [glibc] + dotted), expected: dotted).count == dotted.count)
        #expect(Self.unblocked(try workspace.run(hosts: old, [glibc] + plain), expected: plain).isEmpty)
    }
}

/// What the resolver tests need from the machine.
enum ResolverTools {
    static let namespaces = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    static let cc = find("cc") ?? find("gcc") ?? find("clang")
    static let muslGCC = find("musl-gcc")

    /// `name` in PATH (the Swift toolchain's own directory included, which has clang).
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/opt/swift/usr/bin"])
            .map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
