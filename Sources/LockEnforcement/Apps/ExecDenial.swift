import Foundation
import LockCore

/// One program the exec guard stopped: what, whose, and how. The daemon turns these into
/// `app.blocked` events.
public struct ExecDenial: Sendable, Equatable, Codable {
    /// How the program was stopped.
    public enum Reason: String, Sendable, Codable {
        /// Its exec was refused (fanotify).
        case exec
        /// An interpreter or the dynamic loader was refused the file (`python3 game.py`).
        case interpreter
        /// Its exec was refused because its content is that of a blocked program (strict).
        case copy
        /// It had started and was killed at once (proc-connector mode).
        case killed
        /// A launch of an app an allowance counts, refused by its open limit (`refusal` says which).
        case openLimit = "open-limit"
    }

    /// The process that tried (for `exec`, the process calling exec).
    public var pid: Int32
    /// The file refused, as this process sees its path.
    public var path: String
    /// The program that tried to open it, for `interpreter`.
    public var opener: String?
    /// The blocked app it belongs to.
    public var appID: String
    /// The app's display name.
    public var appName: String
    /// How it was stopped.
    public var reason: Reason
    /// When.
    public var date: Date
    /// For `openLimit`: the allowance and limit that refused it.
    public var refusal: OpenRefusal?

    /// Creates a record.
    public init(
        pid: Int32, path: String, opener: String? = nil, appID: String, appName: String, reason: Reason,
        date: Date = Date(), refusal: OpenRefusal? = nil
    ) {
        self.refusal = refusal
        self.pid = pid
        self.path = path
        self.opener = opener
        self.appID = appID
        self.appName = appName
        self.reason = reason
        self.date = date
    }
}
