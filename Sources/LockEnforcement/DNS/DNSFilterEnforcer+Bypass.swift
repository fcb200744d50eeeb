import Foundation
import LockCore
import Synchronization

/// The ways the machine's DNS can get past the filter while its redirect is in force, checked at
/// every `check`, `status` and `doctor` and by the watch: sockets of other processes carrying
/// the exemption mark now (sock_diag), port-53 traffic with the mark that the daemon did not
/// send, however short-lived its socket (the table's counters against `ExemptionLedger`), and
/// other tables' NAT chains that rewrite DNS before the redirect.
extension DNSFilterEnforcer {
    /// Where the enforcer asks about the redirect's path in the kernel (the nftables enforcer's
    /// `dnsPath()`); without it only sockets open at the moment are looked at.
    public nonisolated func setPathReader(_ reader: @escaping @Sendable () async -> DNSPathReport?) {
        pathReader.withLock { $0 = reader }
    }

    /// Reads the kernel's counters and the other tables' NAT chains now; concurrent callers
    /// share one read, so readings reach the account in the order they were taken.
    public func refreshPath() async {
        if let running = pathCheck { return await running.value }
        let task = Task { await readPathOnce() }
        pathCheck = task
        await task.value
        pathCheck = nil
    }

    private func readPathOnce() async {
        guard let reader = pathReader.withLock({ $0 }) else { return }
        // The kernel first, then the daemon's own count: every send of the daemon that the
        // kernel counted was counted by the daemon before it was made.
        let report = redirect == nil ? nil : await reader()
        exemptionAccount.observe(kernel: report?.exemption, daemon: ledger?.total ?? ExemptedTraffic(), at: .now)
        rivals = report?.rivals ?? []
        pathProblem = report?.problem
    }

    /// What lets DNS past the filter while the redirect is in force, in sentences; nil when
    /// nothing (or nothing is redirected).
    func bypassed() async -> String? {
        guard redirect != nil else { return nil }
        await refreshPath()
        var found: [String] = []
        if let borrowers {
            let now = borrowers.current().borrowers
            if !now.isEmpty {
                found.append(
                    now.map(\.description).joined(separator: "; ")
                        + ": its DNS queries skip the filter (the redirect exempts sockets with mark \(Self.hex(borrowers.mark)), "
                        + "which only the daemon should set)")
            }
        }
        if let counted = exemptionAccount.finding { found.append(counted) }
        found += rivals
        return found.isEmpty ? nil : found.joined(separator: "; ")
    }

    public func diagnose() async -> [Finding] {
        guard let borrowers, redirect != nil else { return [] }
        await refreshPath()
        var findings: [Finding] = []
        let (now, problem) = borrowers.current()
        let mark = Self.hex(borrowers.mark)
        if let problem {
            findings.append(Finding("dns exemption mark", .warning, "cannot check who carries the daemon's mark: \(problem)"))
        } else if !now.isEmpty {
            let processes = now.map { "\($0.pid) (\($0.command))" }.joined(separator: ", ")
            findings.append(
                Finding(
                    "dns exemption mark", .problem, now.map(\.description).joined(separator: "; "),
                    fix: "stop process \(processes), or have it stop setting SO_MARK \(mark) on its sockets"))
        }
        if let counted = exemptionAccount.finding {
            findings.append(
                Finding(
                    "dns exemption count", .problem, counted,
                    fix: "find the program that sets SO_MARK \(mark) on its sockets (root only) and stop it; "
                        + "this stays reported until the block ends"))
        } else if let pathProblem {
            findings.append(Finding("dns exemption count", .warning, "cannot count the exempted DNS traffic: \(pathProblem)"))
        }
        for rival in rivals {
            findings.append(
                Finding(
                    "dns redirect order", .problem, rival,
                    fix: "delete that chain, or give it a priority above \(NFTablesDNSPath.redirectPriority)"))
        }
        if findings.isEmpty {
            findings.append(Finding("dns exemption mark", .ok, "no other process carries or carried the daemon's mark"))
        }
        return findings
    }

    static func hex(_ mark: UInt32) -> String { "0x" + String(mark, radix: 16) }
}
