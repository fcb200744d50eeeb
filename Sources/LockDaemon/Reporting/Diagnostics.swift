import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockPlatform

/// The daemon's side of `lockctl doctor`: checks that need the daemon's view (its files, its
/// enforcers, its state) or its privileges. Each finding says how to fix it. What an enforcer
/// manages it checks itself (`Enforcer.diagnose()`).
struct Diagnostics {
    let paths: Paths
    let statuses: [EnforcerStatus]
    let configuredEnforcers: [String]
    let fileProblems: [String]
    /// Each enforcer in use and what names it can and cannot cover.
    let scopes: [(name: String, scope: EnforcerScope?)]
    /// Imported lists.
    let importedLists: Int
    /// Lists that profiles name but that are not imported, with those profiles.
    let missingLists: [String: [String]]
    /// Why nftables cannot be used here, when it is not in use; nil when it could be.
    let firewallUnavailable: String?
    /// Why the connection check cannot run here, when it is not in use; nil when it could.
    var connectionCheckUnavailable: String? = nil
    /// Why the state database could only be opened for reading, if so.
    let stateReadOnly: String?
    let now: ClockReading
    /// How the daemon was started: the fixes name commands that work for it.
    var launch = DaemonLaunch()

    func run() -> [Finding] {
        var checks = statuses.map(enforcer)
        checks.append(coverage())
        checks.append(blocklists())
        checks.append(firewall())
        if let check = connectionCheck() { checks.append(check) }
        checks.append(dnsOverHTTPS())
        checks.append(stateDirectory())
        checks += configuration()
        checks.append(clock())
        checks.append(timeZone())
        return checks
    }

    private func enforcer(_ status: EnforcerStatus) -> Finding {
        switch status.health {
        case .problem(let reason):
            return Finding("enforcer \(status.name)", .problem, reason, fix: "\(launch.logHint); the daemon retries at each checkpoint")
        case .ok: return Finding("enforcer \(status.name)", .ok, "applied, \(status.elements) elements")
        case .idle: return Finding("enforcer \(status.name)", .ok, "idle")
        }
    }

    /// Which enforcers are active and what each can and cannot keep from being reached.
    private func coverage() -> Finding {
        let active = scopes.compactMap { entry in entry.scope.map { "\(entry.name): \($0.covers); not: \($0.misses)" } }
        let names = scopes.map(\.name)
        guard names.contains("dns") else {
            return Finding(
                "coverage", .warning,
                "active: \(names.joined(separator: ", ")). " + active.joined(separator: ". "),
                fix: "subdomains (m.reddit.com under reddit.com) and imported lists are blocked only by the dns enforcer: "
                    + "add \"dns\" and \"nftables\" to enforcers in \(paths.configFile) (the default where nftables works)")
        }
        return Finding("coverage", .ok, "active: \(names.joined(separator: ", ")). " + active.joined(separator: ". "))
    }

    private func blocklists() -> Finding {
        if !missingLists.isEmpty {
            let text = missingLists.keys.sorted().map { "\($0) (named by \(missingLists[$0]!.joined(separator: ", ")))" }
            return Finding(
                "blocklists", .warning, "profiles name lists that are not imported: \(text.joined(separator: ", "))",
                fix: "lockctl lists import NAME FILE, or lockctl profiles remove-list PROFILE NAME")
        }
        if importedLists > 0, !scopes.contains(where: { $0.name == "dns" }) {
            return Finding(
                "blocklists", .warning, "\(importedLists) imported lists, but only the dns enforcer blocks their names",
                fix: "add \"dns\" and \"nftables\" to enforcers in \(paths.configFile)")
        }
        return Finding("blocklists", .ok, importedLists == 0 ? "none imported" : "\(importedLists) imported")
    }

    private func firewall() -> Finding {
        if configuredEnforcers.contains("nftables") {
            return Finding("nftables", .ok, "in use: blocked names are also blocked by address, open connections included")
        }
        if let reason = firewallUnavailable {
            return Finding(
                "nftables", .warning, "not usable here: \(reason)",
                fix: "install nftables and run simplylockd as root with CAP_NET_ADMIN (the shipped unit does)")
        }
        return Finding("nftables", .warning, "available but not enabled: only name lookups are blocked", fix: enableFirewall)
    }

    /// Whether names reached past the DNS filter are refused at connection time; nothing to say
    /// without the firewall, whose finding comes first.
    private func connectionCheck() -> Finding? {
        let title = "connection check"
        if configuredEnforcers.contains("connections") {
            let shared =
                configuredEnforcers.contains("nftables")
                ? "; the firewall hands TCP to blocked names' addresses over to it, so sites sharing them keep working" : ""
            return Finding(
                title, .ok,
                "in use: during blocks, new connections naming a blocked name (TLS SNI, HTTP Host) are reset whatever address, "
                    + "port or resolver was used; not with Encrypted ClientHello" + shared)
        }
        guard configuredEnforcers.contains("nftables") else { return nil }
        if let reason = connectionCheckUnavailable {
            return Finding(
                title, .warning, "not usable here: \(reason)",
                fix: "a kernel with nft_compat and xt_NFQUEUE (CONFIG_NFT_COMPAT, CONFIG_NETFILTER_XT_TARGET_NFQUEUE; "
                    + "Debian's has them as modules)")
        }
        return Finding(
            title, .warning,
            "available but not enabled: a name reached past the DNS filter (another resolver or port, DNS over HTTPS, "
                + "a hosts line) is blocked only at the addresses the firewall knows, and sites sharing those addresses are cut too",
            fix: "add \"connections\" to enforcers in \(paths.configFile) (the default where the kernel can queue packets)")
    }

    private func dnsOverHTTPS() -> Finding {
        if configuredEnforcers.contains("nftables") {
            return Finding(
                "DNS over HTTPS", .ok, "the nftables enforcer blocks known DoH endpoints during blocks, and Firefox's canary name")
        }
        return Finding(
            "DNS over HTTPS", .warning, "browsers that use DNS over HTTPS do not read the hosts file and can reach blocked sites",
            fix: enableFirewall + ", or turn DoH off in the browser's policies")
    }

    private func stateDirectory() -> Finding {
        if let stateReadOnly {
            return Finding(
                "state", .problem,
                "\(paths.stateDatabase) could only be opened for reading (\(stateReadOnly)): saved blocks are enforced, but no change can be made",
                fix: "free space in \(paths.stateDirectory) (or make it writable), then \(launch.restartCommand)")
        }
        if let problem = StateDirectoryProbe.problem(paths.stateDirectory) {
            return Finding(
                "state", .problem, "\(paths.stateDirectory): \(problem): changes cannot be saved",
                fix: "free space in \(paths.stateDirectory), or check StateDirectory= in the unit and the directory's owner")
        }
        return Finding("state", .ok, paths.stateDatabase)
    }

    /// One finding per problem, so each file's problem is on a line of its own. A problem, as
    /// `lockctl reload` counts it: the file is not used as written.
    private func configuration() -> [Finding] {
        guard fileProblems.isEmpty else {
            return fileProblems.map { Finding("configuration", .problem, $0, fix: Finding.fixFile(lockctl: launch.lockctl)) }
        }
        return [Finding("configuration", .ok, "all files load")]
    }

    /// How to turn the firewall on for the way this daemon was started.
    private var enableFirewall: String {
        if let listed = launch.enforcersOverride {
            return "start simplylockd with --enforcers \((listed + ["nftables"]).joined(separator: ","))"
        }
        let file = paths.configFile
        let edit =
            FileManager.default.fileExists(atPath: file)
            ? "add \"nftables\" to enforcers in \(file)" : "create \(file) with enforcers = [\"hosts\", \"nftables\"]"
        return "\(edit), then \(launch.restartCommand)"
    }

    private func clock() -> Finding {
        if !now.wallIsSynchronised {
            return Finding(
                "clock", .warning, "the system clock is not synchronised; schedules follow the wall clock (timed blocks do not)",
                fix: "enable time synchronisation (systemd-timesyncd, chrony)")
        }
        return Finding("clock", .ok, "synchronised; block time counts on CLOCK_BOOTTIME, so clock changes do not shorten blocks")
    }

    private func timeZone() -> Finding {
        let zone = TimeZone.current.identifier
        if let variable = ProcessInfo.processInfo.environment["TZ"] {
            return Finding("time zone", .ok, "\(zone) (from TZ=\(variable))")
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime") {
            return Finding("time zone", .ok, "\(zone) (/etc/localtime → \(target))")
        }
        return Finding(
            "time zone", FileManager.default.fileExists(atPath: "/etc/localtime") ? .ok : .warning,
            "\(zone)",
            fix: FileManager.default.fileExists(atPath: "/etc/localtime")
                ? nil : "set a time zone: ln -sf /usr/share/zoneinfo/Area/City /etc/localtime")
    }
}
