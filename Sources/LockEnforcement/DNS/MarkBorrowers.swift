import Foundation
import LockCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A process other than the daemon with a socket carrying the daemon's exemption mark: its
/// DNS queries skip the filter's redirect (`socket mark` in the redirect chain).
public struct MarkBorrower: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var command: String
    /// The socket, as `udp 198.18.0.1:40000`.
    public var socket: String

    public var description: String { "process \(pid) (\(command)) has a socket carrying the daemon's exemption mark (\(socket))" }
}

/// Finds the sockets that carry the DNS filter's mark without being the daemon's own, with
/// sock_diag: every TCP and UDP socket with its mark (reported to CAP_NET_ADMIN), the daemon's
/// own told apart by `/proc/self/fd`, the others' holders found in `/proc/*/fd`.
///
/// Setting SO_MARK needs CAP_NET_ADMIN, so only a privileged process can borrow the mark; a
/// table cannot lend it, the redirect reads the socket's mark, not the packet's. What this sees
/// is the sockets open when it looks (at `check`, `status`, `doctor` and every few seconds); a
/// socket opened and closed between two looks goes unseen.
final class MarkBorrowers: Sendable {
    private struct State: @unchecked Sendable {
        var diagnostics: SocketDiagnostics?
        var checked: ContinuousClock.Instant?
        var found: [MarkBorrower] = []
        var problem: String?
    }

    let mark: UInt32
    private let proc: String
    private let state = Mutex(State())

    init(mark: UInt32, proc: String = "/proc") {
        self.mark = mark
        self.proc = proc
    }

    /// The borrowers now, looked up again when the last look is older than `maxAge`; `problem`
    /// says why sockets could not be looked at.
    func current(maxAge: Duration = .milliseconds(100)) -> (borrowers: [MarkBorrower], problem: String?) {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let checked = state.checked, now - checked < maxAge { return (state.found, state.problem) }
            state.checked = now
            (state.found, state.problem) = look(&state)
            return (state.found, state.problem)
        }
    }

    private func look(_ state: inout State) -> ([MarkBorrower], String?) {
        if state.diagnostics == nil {
            do { state.diagnostics = try SocketDiagnostics() } catch { return ([], "\(error)") }
        }
        guard let diagnostics = state.diagnostics else { return ([], nil) }
        var marked: [UInt32: DiagnosedSocket] = [:]
        var markless = 0
        var withMark = 0
        for proto in [Int32(IPPROTO_UDP), Int32(IPPROTO_TCP)] {
            for family in [IPNetwork.Family.ipv4, .ipv6] {
                let sockets: [DiagnosedSocket]
                do { sockets = try diagnostics.all(proto: proto, family: family) } catch {
                    if family == .ipv6, error.code == EAFNOSUPPORT || error.code == ENOENT { continue }
                    return ([], "sockets cannot be listed: \(error)")
                }
                for socket in sockets {
                    guard let socketMark = socket.mark else {
                        markless += 1
                        continue
                    }
                    withMark += 1
                    if socketMark == mark, socket.inode != 0 { marked[socket.inode] = socket }
                }
            }
        }
        if markless > 0 && withMark == 0 {
            return ([], "the kernel does not report socket marks to the daemon (it needs CAP_NET_ADMIN)")
        }
        let own = getpid()
        let ours = SocketHolders.inodes(of: own, among: Set(marked.keys), proc: proc)
        let foreign = Set(marked.keys).subtracting(ours)
        guard !foreign.isEmpty else { return ([], nil) }
        var borrowers: [MarkBorrower] = []
        for (inode, pids) in SocketHolders.holders(of: foreign, proc: proc) {
            guard let socket = marked[inode] else { continue }
            for pid in pids where pid != own {
                let name = socket.proto == IPPROTO_UDP ? "udp" : "tcp"
                let local = IPNetwork.format(address: socket.local.address, family: socket.local.family)
                borrowers.append(
                    MarkBorrower(
                        pid: pid, command: SocketHolders.command(of: pid, proc: proc),
                        socket: "\(name) \(socket.local.family == .ipv6 ? "[\(local)]" : local):\(socket.local.port)"))
            }
        }
        return (borrowers.sorted { ($0.pid, $0.socket) < ($1.pid, $1.socket) }, nil)
    }
}
