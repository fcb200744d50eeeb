import Glibc
import LockProtocol

/// Decides who may change things: root, and members of the `simplylock` group. Anyone who can
/// reach the socket may read.
public struct Authorizer: Sendable {
    /// The group whose members may make changes.
    public var groupName: String

    /// Creates an authorizer for `groupName`.
    public init(groupName: String = API.adminGroup) { self.groupName = groupName }

    /// True when `peer` may make changes: by the groups the kernel reported for the process at
    /// connect time (so a membership removed from the database, or never activated in the
    /// caller's session, decides nothing). Only when the kernel could not list the groups is
    /// the user database asked. Uses the re-entrant lookups: requests are served on several
    /// threads at once.
    public func mayChange(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 { return true }
        guard let groupID = Authorizer.groupID(named: groupName) else { return false }
        if peer.gid == groupID { return true }
        if let groups = peer.groups { return groups.contains(groupID) }
        guard let (name, primary) = Authorizer.user(peer.uid) else { return false }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &groups, &count) >= 0 else { return false }
        }
        return groups.prefix(Int(count)).contains(groupID)
    }

    private static func groupID(named name: String) -> gid_t? {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &group, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return group.gr_gid
    }

    private static func user(_ uid: uid_t) -> (String, gid_t)? {
        var user = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &user, &buffer, buffer.count, &result) == 0, result != nil, let name = user.pw_name else { return nil }
        return (String(cString: name), user.pw_gid)
    }
}
