import Glibc
import NIOCore

/// Who is on the other end of a Unix-socket connection, as the kernel saw them connect
/// (`SO_PEERCRED` and `SO_PEERGROUPS`): it cannot be forged by the client, and the groups are
/// the process's real ones, not what the user database says today.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    /// Process id.
    public var pid: Int32
    /// User id.
    public var uid: UInt32
    /// Primary group id.
    public var gid: UInt32
    /// Supplementary groups, or nil when the kernel could not say (more than 64 of them).
    public var groups: [UInt32]?

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32]? = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Someone whose credentials could not be read: may read, may not change anything.
    public static let unknown = PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)

    public var description: String { "pid=\(pid) uid=\(uid) gid=\(gid)" }

    /// Reads the peer credentials of a connected Unix-socket channel.
    public static func read(from channel: any Channel) async -> PeerCredentials {
        guard let provider = channel as? any SocketOptionProvider,
            let raw: RawCredentials = try? await fetch(provider, SO_PEERCRED).get()
        else { return .unknown }
        // NIO zeroes the buffer and does not report the length; gid 0 is never the admin group,
        // so the zeroes after the real groups change no decision.
        let groups: RawGroups? = try? await fetch(provider, SO_PEERGROUPS).get()
        return PeerCredentials(
            pid: raw.pid, uid: raw.uid, gid: raw.gid,
            groups: groups.map { buffer in withUnsafeBytes(of: buffer) { Array($0.bindMemory(to: UInt32.self)) }.filter { $0 != 0 } })
    }

    // Mirrors `struct ucred`, which Swift's Glibc module does not export.
    private struct RawCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    // Room for 64 groups (NGROUPS is larger, but people in more groups fall back to the database).
    private struct RawGroups: Sendable {
        var ids:
            (
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
            )
    }

    // Kept private and non-inlinable: NIO requires that for `unsafeGetSocketOption`.
    private static func fetch<Value: Sendable>(_ provider: any SocketOptionProvider, _ option: Int32) -> EventLoopFuture<Value> {
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(option))
    }
}
