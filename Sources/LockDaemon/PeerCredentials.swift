import Glibc
import NIOCore

/// Who is on the other end of a Unix-socket connection, as the kernel saw them connect
/// (`SO_PEERCRED`): it cannot be forged by the client.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    /// Process id.
    public var pid: Int32
    /// User id.
    public var uid: UInt32
    /// Primary group id.
    public var gid: UInt32

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid=\(pid) uid=\(uid) gid=\(gid)" }

    /// Reads the peer credentials of a connected Unix-socket channel.
    static func read(from channel: any Channel) async throws -> PeerCredentials {
        guard let provider = channel as? any SocketOptionProvider else { throw ChannelError.operationUnsupported }
        let raw: RawCredentials = try await fetch(provider).get()
        return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid)
    }

    // Mirrors `struct ucred`, which Swift's Glibc module does not export.
    private struct RawCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    // Kept private and non-inlinable: NIO requires that for `unsafeGetSocketOption`.
    private static func fetch(_ provider: any SocketOptionProvider) -> EventLoopFuture<RawCredentials> {
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
    }
}
