import Foundation
import Glibc

/// Unbound's remote control protocol over its Unix control socket (`control-interface:
/// /path`, `control-use-cert: no`): one connection per command, `UBCT1 <command>\n`, then for
/// the bulk commands one line per entry ended by an end-of-transmission line (`\u{4}\n`); the
/// answer is everything Unbound writes until it closes the connection.
///
/// Calls block for as long as Unbound takes (bounded by `timeout`); callers run them off the
/// cooperative pool.
public struct UnboundControl: Sendable {
    /// The control socket's path.
    public let path: String
    /// Longest wait for Unbound to accept, read or answer.
    public let timeout: Duration

    /// Creates a client of the control socket at `path`.
    public init(path: String, timeout: Duration = .seconds(10)) {
        self.path = path
        self.timeout = timeout
    }

    /// Sends `command` (with `lines` for the bulk commands `local_zones`, `local_zones_remove`,
    /// `local_datas`…) and returns Unbound's answer.
    ///
    /// - Throws: `UnboundControlError` when the socket cannot be reached, the exchange fails,
    ///   or Unbound answers with an error (`error …` on its first line, or `error for input
    ///   line` for a bulk entry).
    public func run(_ command: String, lines: [String]? = nil) throws(UnboundControlError) -> String {
        let fd = try connectSocket()
        defer { close(fd) }
        var request = "UBCT1 \(command)\n"
        if let lines {
            request.reserveCapacity(request.utf8.count + lines.reduce(0) { $0 + $1.utf8.count + 1 } + 2)
            for line in lines {
                request += line
                request += "\n"
            }
            request += "\u{4}\n"
        }
        try sendAll(fd, Array(request.utf8), command: command)
        let answer = try receiveAll(fd, command: command)
        if answer.hasPrefix("error") || answer.contains("\nerror") || answer.hasPrefix("no view with name") {
            throw .refused(command: command, answer: answer.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return answer
    }

    private func connectSocket() throws(UnboundControlError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .unreachable(path: path, reason: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(path: path, reason: String(cString: strerror(errno))) }
        let seconds = timeout.components.seconds
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .unreachable(path: path, reason: reason)
        }
        return fd
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8], command: String) throws(UnboundControlError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .exchange(command: command, reason: "send: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    private func receiveAll(_ fd: Int32, command: String) throws(UnboundControlError) -> String {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .exchange(command: command, reason: "receive: \(String(cString: strerror(errno)))")
            }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}

/// Why a command to Unbound's control socket failed.
public enum UnboundControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens on the control socket (Unbound stopped, or not configured with it).
    case unreachable(path: String, reason: String)
    /// The connection broke or timed out during the exchange.
    case exchange(command: String, reason: String)
    /// Unbound answered with an error.
    case refused(command: String, answer: String)

    public var description: String {
        switch self {
        case .unreachable(let path, let reason):
            "cannot reach Unbound's control socket \(path): \(reason) (is Unbound running with control-interface: \(path)?)"
        case .exchange(let command, let reason): "Unbound control command \(command.split(separator: " ").first ?? ""): \(reason)"
        case .refused(let command, let answer):
            "Unbound refused \(command.split(separator: " ").first ?? ""): \(answer.split(separator: "\n").prefix(3).joined(separator: "; "))"
        }
    }
}
