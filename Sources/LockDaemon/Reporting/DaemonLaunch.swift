import Foundation
import LockCore

/// How this daemon was started, so that doctor's fixes name commands that work for it: a
/// daemon run by hand under a scratch root is not restarted with systemctl, and one started
/// with `--enforcers` does not read the configuration's list.
public struct DaemonLaunch: Sendable, Equatable {
    /// Started by systemd (it sets `INVOCATION_ID` for every service it runs).
    public var bySystemd: Bool
    /// The `--enforcers` list, which overrides the configuration's.
    public var enforcersOverride: [String]?
    /// The `--root` prefix.
    public var root: String

    /// Describes a launch.
    public init(bySystemd: Bool = false, enforcersOverride: [String]? = nil, root: String = "/") {
        self.bySystemd = bySystemd
        self.enforcersOverride = enforcersOverride
        self.root = root
    }

    /// This process's launch.
    public static func current(enforcersOverride: [String]?, root: String) -> DaemonLaunch {
        DaemonLaunch(
            bySystemd: ProcessInfo.processInfo.environment["INVOCATION_ID"] != nil, enforcersOverride: enforcersOverride,
            root: root)
    }

    /// Where its log can be read.
    var logHint: String {
        bySystemd ? "see `journalctl -u simplylockd`" : "see simplylockd's standard error (it was not started by systemd)"
    }

    /// How to restart it.
    var restartCommand: String {
        bySystemd ? "`systemctl restart simplylockd`" : "stop simplylockd and start it again with the same options"
    }

    /// `lockctl` with the options that reach this daemon.
    var lockctl: String { root == "/" ? "lockctl" : "lockctl --root \(root)" }
}
