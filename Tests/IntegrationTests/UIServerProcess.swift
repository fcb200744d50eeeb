import Foundation
import Glibc
import TestSupport

/// `lockctl ui --no-open` running against a test daemon: the address it printed, and plain
/// HTTP over TCP to it for requests no browser would send.
final class UIServerProcess: @unchecked Sendable {
    let process: ChildProcess
    let url: String
    let port: Int
    let token: String
    private let outputPath: String

    /// Starts the server (through `wrapper`, e.g. setpriv, when given) and waits for its address.
    init(root: TestRoot, lockctl: String = Binaries.lockctl, wrapper: [String] = [], environment: [String: String] = [:]) throws {
        outputPath = root.path + "/ui-\(UUID().uuidString).out"
        let command = wrapper + [lockctl, "--root", root.path, "ui", "--no-open"]
        let child = try ChildProcess(
            command[0], Array(command.dropFirst()), environment: ProcessRunner.environment(environment), stdout: .file(outputPath),
            stderr: .file(outputPath + ".err"))
        process = child
        var found: String?
        let path = outputPath
        try waitUntil("lockctl ui to print its address", timeout: 20) {
            if let status = child.poll() {
                throw TestFailure(
                    "lockctl ui exited with \(status): \((try? String(contentsOfFile: path + ".err", encoding: .utf8)) ?? "")")
            }
            found = (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").first { $0.hasPrefix("http://") }.map(
                String.init)
            return found != nil
        }
        url = found!
        guard let components = URLComponents(string: url), let port = components.port,
            let token = components.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw TestFailure("not an address with a token: \(url)") }
        self.port = port
        self.token = token
    }

    var stderr: String { (try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? "" }

    /// Stops with `signal` and returns the exit status.
    func stop(_ signal: Int32 = SIGTERM) throws -> Int32 {
        process.send(signal)
        guard let status = process.wait(timeout: 10) else {
            process.send(SIGKILL)
            throw TestFailure("lockctl ui did not stop on signal \(signal)")
        }
        return status
    }

    deinit {
        if process.poll() == nil {
            process.send(SIGKILL)
            _ = process.wait(timeout: 5)
        }
    }

    /// The host header a browser sends for the printed address.
    var host: String { "127.0.0.1:\(port)" }

    /// One request with `Connection: close`; `headers` are added as given (Host included).
    func request(
        _ method: String, _ target: String, headers: [(String, String)], body: String? = nil, address: String = "127.0.0.1",
        readFor timeout: Int = 5
    ) throws -> HTTPAnswer {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "Connection: close\r\n\r\n" + (body ?? "")
        return HTTPAnswer(try TCP.exchange(address: address, port: port, text, timeout: timeout))
    }

    /// Spends the token and returns the session cookie (`name=value`).
    func login() throws -> String {
        let answer = try request("GET", "/?token=\(token)", headers: [("Host", host)])
        guard answer.status == 303, let cookie = answer.header("set-cookie")?.split(separator: ";").first else {
            throw TestFailure("login: \(answer.raw)")
        }
        return String(cookie)
    }
}

/// A parsed HTTP answer.
struct HTTPAnswer {
    let raw: String
    let status: Int
    let head: [(String, String)]
    let body: String

    init(_ raw: String) {
        self.raw = raw
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        head = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = parts.dropFirst().joined(separator: "\r\n\r\n")
    }

    func header(_ name: String) -> String? { head.first { $0.0 == name }?.1 }
}

/// Blocking TCP for the tests.
enum TCP {
    /// Sends `text` and reads until the peer closes or `timeout` seconds pass without data.
    static func exchange(address: String, port: Int, _ text: String, timeout: Int) throws -> String {
        let ipv6 = address.contains(":")
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(fd) }
        var receiveTimeout = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, address, &socketAddress.sin6_addr)
            connected = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, address, &socketAddress.sin_addr)
            connected = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else { throw TestFailure("connect \(address):\(port): errno \(errno)") }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            result += buffer[0..<n]
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The local addresses listening on `port` (from /proc/net/tcp and tcp6), as hex.
    static func listeners(port: Int) -> [String] {
        // ss filters in the kernel (sock_diag), over the listening sockets only: /proc/net/tcp is
        // read in pieces and can skip a line while other tests open and close sockets.
        guard let result = try? ProcessRunner.run("/usr/bin/ss", ["-Hltn", "sport = :\(port)"], timeout: 10), result.status == 0 else {
            return []
        }
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, let colon = fields[3].lastIndex(of: ":") else { return nil }
            return String(fields[3][..<colon])
        }.sorted()
    }
}
