import ArgumentParser
import Foundation
import Glibc
import LockClient
import LockCore
import LockProtocol

/// `lockctl doctor`: everything a user needs to know when blocking does not work.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check that blocking works here, and say how to fix what does not (exit 1 when a problem is found).")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        var checks = localChecks()
        var daemonAnswered = false
        do throws(ClientError) {
            let status = try await global.client.status()
            daemonAnswered = true
            if status.version == API.softwareVersion {
                checks.append(DoctorCheck("daemon", .ok, "simplylockd \(status.version) answers on \(global.socketPath)"))
            } else {
                checks.append(
                    DoctorCheck(
                        "daemon", .warning, "simplylockd \(status.version) answers, but lockctl is \(API.softwareVersion)",
                        fix: "restart simplylockd after upgrading: systemctl restart simplylockd"))
            }
            checks += try await global.client.doctor().checks
            checks += BrowserSetup.doctorChecks(root: global.root, client: global.client)
        } catch {
            checks.append(DoctorCheck("daemon", .problem, error.description, fix: startCommand))
        }
        if !daemonAnswered { checks.append(staleSectionCheck()) }

        if try global.printJSON(DoctorReport(checks: checks)) {
        } else {
            print(DoctorCommand.render(checks))
        }
        if checks.contains(where: { $0.state == .problem }) { throw ExitCode(ExitCodes.negative) }
    }

    static func render(_ checks: [DoctorCheck]) -> String {
        let width = checks.map(\.name.count).max() ?? 0
        var lines: [String] = []
        for check in checks {
            let state = check.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            lines.append(
                "\(state) \(check.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(TextFormat.shown(check.message))")
            if let fix = check.fix, check.state != .ok {
                lines.append(String(repeating: " ", count: 9 + width + 2) + "fix: \(fix)")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func localChecks() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let path = global.socketPath
        var info = stat()
        if lstat(path, &info) != 0 {
            checks.append(DoctorCheck("socket", .problem, "\(path) does not exist", fix: startCommand))
        } else if info.st_mode & S_IFMT != S_IFSOCK {
            checks.append(DoctorCheck("socket", .problem, "\(path) is not a socket", fix: "remove it and restart simplylockd"))
        } else if access(path, W_OK) != 0 {
            checks.append(
                DoctorCheck(
                    "socket", .problem, "\(path) exists but you may not connect to it",
                    fix: "SocketMode= in simplylockd.socket must let you connect (the default is 0666)"))
        } else {
            checks.append(DoctorCheck("socket", .ok, path))
        }
        checks.append(permissions())
        return checks
    }

    /// How to start the daemon this lockctl looks for.
    private var startCommand: String {
        if global.socket != nil { return "start simplylockd with --socket \(global.socketPath)" }
        if global.root != "/" { return "start it: simplylockd --root \(global.root)" }
        return "sudo systemctl start simplylockd.socket simplylockd.service"
    }

    private func permissions() -> DoctorCheck {
        if geteuid() == 0 { return DoctorCheck("permissions", .ok, "root: may start and stop blocks") }
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        let count = getgroups(Int32(groups.count), &groups)
        let member =
            getgrnam(API.adminGroup).map { group in
                groups.prefix(Int(max(0, count))).contains(group.pointee.gr_gid) || getegid() == group.pointee.gr_gid
            } ?? false
        if member { return DoctorCheck("permissions", .ok, "member of \(API.adminGroup): may start and stop blocks") }
        let user = getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "$USER"
        return DoctorCheck(
            "permissions", .warning, "you may read the status but not start or stop blocks",
            fix: "sudo usermod -aG \(API.adminGroup) \(user), then log in again")
    }

    /// Without a daemon, a managed section left in the hosts file is a block nobody will lift.
    private func staleSectionCheck() -> DoctorCheck {
        let path = Paths(root: global.root).hostsFile
        guard let data = FileManager.default.contents(atPath: path) else {
            return DoctorCheck("hosts file", .warning, "\(path) cannot be read")
        }
        let document = HostsDocument(bytes: Array(data))
        guard document.hadSection else { return DoctorCheck("hosts file", .ok, "\(path): no managed section") }
        return DoctorCheck(
            "hosts file", .warning, "\(path) has a managed section (\(document.listedNames.count) names) but simplylockd is not running",
            fix: "start simplylockd: it ends blocks whose time ran out and removes the section")
    }
}
