import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockPlatform
import LockProtocol

/// The daemon's side of `lockctl doctor`: checks that need the daemon's view (what should be
/// blocked, its files, its enforcers) or its privileges. Each finding says how to fix it.
struct Diagnostics {
    let paths: Paths
    let desired: DesiredBlock
    /// What the hosts section must list for `desired`.
    let hostsNames: [String]
    let reports: [EnforcerReport]
    let configuredEnforcers: [String]
    let fileProblems: [String]
    /// Why nftables cannot be used here, when it is not in use; nil when it could be.
    let firewallUnavailable: String?

    func run() -> [DoctorCheck] {
        var checks = [hostsFile()]
        checks += reports.map(enforcer)
        checks.append(firewall())
        checks.append(dnsOverHTTPS())
        checks.append(stateDirectory())
        checks.append(configuration())
        checks.append(clock())
        checks.append(timeZone())
        return checks
    }

    private func hostsFile() -> DoctorCheck {
        let path = paths.hostsFile
        let directory = (path as NSString).deletingLastPathComponent
        // What other users' resolvers see: file type, modes, and glibc's and musl's reading.
        if let problem = HostsFileInspection(path: path).problem(names: hostsNames) { return problem }
        guard access(directory, W_OK) == 0 || access(path, W_OK) == 0 else {
            return DoctorCheck("hosts file", .problem, "\(path) cannot be written by simplylockd",
                               fix: "make \(directory) writable for the daemon (ReadWritePaths=/etc in the unit)")
        }
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(path) ?? [] } catch {
            return DoctorCheck("hosts file", .problem, error.description, fix: "check the file's permissions")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let begins = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces) == HostsDocument.beginMarker }.count
        let document = HostsDocument(bytes: bytes)
        let expected = document.rendered(names: hostsNames)
        if expected != bytes {
            let what = begins > 1 ? "has \(begins) managed sections" : (hostsNames.isEmpty ? "still has a managed section although nothing is blocked"
                                                                                          : "does not have the section the active blocks need")
            return DoctorCheck("hosts file", .problem, "\(path) \(what)",
                               fix: "the daemon rewrites it on every change and within a second of an edit; if this persists, see `journalctl -u simplylockd`")
        }
        // The user's own entries come first in lookups, so one for a blocked name defeats the block.
        let blocked = Set(desired.domains)
        for line in String(decoding: document.userBytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix { !$0.hasPrefix("#") }
            guard let address = fields.first, address != "0.0.0.0", address != "::", address != "127.0.0.1", address != "::1" else { continue }
            if let name = fields.dropFirst().first(where: { blocked.contains(String($0).lowercased()) }) {
                return DoctorCheck("hosts file", .warning, "your own entry \"\(line.trimmingCharacters(in: .whitespaces))\" maps blocked \(name) to a real address",
                                   fix: "remove that line from \(path) while you want \(name) blocked")
            }
        }
        return DoctorCheck("hosts file", .ok, hostsNames.isEmpty ? "\(path): nothing blocked, no managed section"
                                                                 : "\(path): managed section in place, \(hostsNames.count) names")
    }

    private func enforcer(_ report: EnforcerReport) -> DoctorCheck {
        if let error = report.lastError {
            return DoctorCheck("enforcer \(report.name)", .problem, error, fix: "see `journalctl -u simplylockd`; the daemon retries at each checkpoint")
        }
        return DoctorCheck("enforcer \(report.name)", .ok, report.applied ? "applied, \(report.elements) elements" : "idle")
    }

    private func firewall() -> DoctorCheck {
        if configuredEnforcers.contains("nftables") {
            return DoctorCheck("nftables", .ok, "in use: blocked names are also blocked by address, open connections included")
        }
        if let reason = firewallUnavailable {
            return DoctorCheck("nftables", .warning, "not usable here: \(reason)",
                               fix: "install nftables and run simplylockd as root with CAP_NET_ADMIN (the shipped unit does)")
        }
        return DoctorCheck("nftables", .warning, "available but not enabled: only name lookups are blocked",
                           fix: "add \"nftables\" to enforcers in \(paths.configFile)")
    }

    private func dnsOverHTTPS() -> DoctorCheck {
        if configuredEnforcers.contains("nftables") {
            return DoctorCheck("DNS over HTTPS", .ok, "the nftables enforcer blocks known DoH endpoints during blocks, and Firefox's canary name")
        }
        return DoctorCheck("DNS over HTTPS", .warning, "browsers that use DNS over HTTPS do not read the hosts file and can reach blocked sites",
                           fix: "add \"nftables\" to enforcers in \(paths.configFile), or turn DoH off in the browser's policies")
    }

    private func stateDirectory() -> DoctorCheck {
        guard access(paths.stateDirectory, W_OK) == 0 else {
            return DoctorCheck("state", .problem, "\(paths.stateDirectory) is not writable: sessions cannot be saved",
                               fix: "check StateDirectory= in the unit and the directory's owner")
        }
        return DoctorCheck("state", .ok, paths.stateDatabase)
    }

    private func configuration() -> DoctorCheck {
        guard fileProblems.isEmpty else {
            return DoctorCheck("configuration", .warning, fileProblems.joined(separator: "; "),
                               fix: "fix the files named, then `lockctl reload`")
        }
        return DoctorCheck("configuration", .ok, "all files load")
    }

    private func clock() -> DoctorCheck {
        if SystemClock.isSynchronised == false {
            return DoctorCheck("clock", .warning, "the system clock is not synchronised; schedules follow the wall clock (timed blocks do not)",
                               fix: "enable time synchronisation (systemd-timesyncd, chrony)")
        }
        return DoctorCheck("clock", .ok, "synchronised; block time counts on CLOCK_BOOTTIME, so clock changes do not shorten blocks")
    }

    private func timeZone() -> DoctorCheck {
        let zone = TimeZone.current.identifier
        if let variable = ProcessInfo.processInfo.environment["TZ"] {
            return DoctorCheck("time zone", .ok, "\(zone) (from TZ=\(variable))")
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime") {
            return DoctorCheck("time zone", .ok, "\(zone) (/etc/localtime → \(target))")
        }
        return DoctorCheck("time zone", FileManager.default.fileExists(atPath: "/etc/localtime") ? .ok : .warning,
                           "\(zone)", fix: FileManager.default.fileExists(atPath: "/etc/localtime") ? nil : "set a time zone: ln -sf /usr/share/zoneinfo/Area/City /etc/localtime")
    }
}
