import Foundation
import Glibc

/// One UI server per user session and daemon socket: the first `lockctl ui` holds a lock in the
/// user's runtime directory and answers on a socket beside it; a later one (the tray's Open, a
/// second terminal) asks it for a new one-time address instead of starting another server. The
/// kernel drops the lock when its holder dies however it dies, so a lock file or socket left by
/// a killed server is simply taken over.
struct UIInstance {
    /// The lock the serving process holds while it lives.
    let lockPath: String
    /// Where it answers a later `lockctl ui`.
    let socketPath: String

    /// What the serving process tells a later `lockctl ui`.
    struct Reply: Codable, Sendable {
        /// A fresh address with a one-time token.
        var url: String
        var port: Int
        /// True when the server opened it in the browser itself.
        var opened: Bool
    }

    /// Why a later `lockctl ui` could not reach the server that holds the lock.
    struct Unreachable: Error, CustomStringConvertible {
        let description: String
    }

    /// The instance of the UI for the daemon at `daemonSocket`, in `$XDG_RUNTIME_DIR`; nil, with
    /// why, when there is no private runtime directory (then every `lockctl ui` serves alone).
    static func locate(daemonSocket: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<
        UIInstance, Unreachable
    > {
        guard let directory = environment["XDG_RUNTIME_DIR"], directory.hasPrefix("/") else {
            return .failure(Unreachable(description: "no $XDG_RUNTIME_DIR"))
        }
        var info = stat()
        // The XDG rule: owned by the user, and only the user may enter it. Anything else could
        // let another user answer in the server's place.
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
            return .failure(Unreachable(description: "$XDG_RUNTIME_DIR (\(directory)) is not a directory only this user may enter"))
        }
        let base = "\(directory)/simplylock-ui-\(key(daemonSocket))"
        guard base.utf8.count + 5 < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            return .failure(Unreachable(description: "the path \(base).sock is too long for a socket"))
        }
        return .success(UIInstance(lockPath: base + ".lock", socketPath: base + ".sock"))
    }

    /// Takes the lock: the open descriptor, held until the process exits, or nil when another
    /// server holds it.
    func claim() throws -> Int32? {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw Unreachable(description: "cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return fd
    }

    /// Asks the running server for a new address, opened in the browser by it when `open`.
    /// Waits up to `patience` seconds for a server that holds the lock but is not yet answering.
    func ask(open: Bool, patience: Double = 5) throws -> Reply {
        let deadline = Date().addingTimeInterval(patience)
        while true {
            do { return try exchange(open ? "open\n" : "url\n") } catch let error as Unreachable {
                guard Date() < deadline else {
                    throw Unreachable(description: "a simplylock-ui already runs (\(lockPath) is held) but does not answer: \(error)")
                }
                usleep(100_000)
            }
        }
    }

    private func exchange(_ request: String) throws -> Reply {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Unreachable(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // Opening a browser can take a few seconds; a server that takes longer is stuck.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw Unreachable(description: "\(socketPath): \(String(cString: strerror(errno)))") }
        let sent = Array(request.utf8)
        guard sent.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == sent.count else {
            throw Unreachable(description: "\(socketPath): \(String(cString: strerror(errno)))")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < UIHandoff.maxReplyBytes {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { throw Unreachable(description: "\(socketPath): no answer: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            answer += buffer[0..<count]
        }
        guard let reply = try? JSONDecoder().decode(Reply.self, from: Data(answer)) else {
            throw Unreachable(description: "\(socketPath): not an answer: \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
        return reply
    }

    /// A short name for a daemon socket (FNV-1a, 64 bits): two roots or daemons get two UIs.
    static func key(_ daemonSocket: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in daemonSocket.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
