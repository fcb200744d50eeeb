import Glibc
import LockProtocol

/// Decides who may change things: root, and members of the `simplylock` group. Anyone who can
/// reach the socket may read.
public struct Authorizer: Sendable {
    /// The group whose members may make changes.
    public var groupName: String

    /// Creates an authorizer for `groupName`.
    public init(groupName: String = API.adminGroup) { self.groupName = groupName }

    /// True when `peer` may make changes. Group membership is read from the user database
    /// at each call, so adding someone to the group needs no daemon restart.
    public func mayChange(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 { return true }
        guard let group = getgrnam(groupName) else { return false }
        let groupID = group.pointee.gr_gid
        if peer.gid == groupID { return true }
        guard let user = getpwuid(peer.uid), let name = user.pointee.pw_name else { return false }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, user.pointee.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, user.pointee.pw_gid, &groups, &count) >= 0 else { return false }
        }
        return groups.prefix(Int(count)).contains(groupID)
    }
}
