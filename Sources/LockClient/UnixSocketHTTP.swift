import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One HTTP/1.1 exchange over a Unix socket with plain blocking system calls.
///
/// A command-line call makes one request and exits; starting an event-loop library for that
/// costs more than the request itself (issue 16 measured it). This speaks just the HTTP the
/// daemon sends: a status line, headers, and a body framed by `Content-Length`, chunked
/// encoding, or the end of the connection.
struct UnixSocketHTTP: Sendable {
    let socketPath: String
    /// How long a whole exchange may take (nil: no limit, for event streams).
    var timeout: Duration? = .seconds(60)

    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
    }

    /// Sends a request and collects the whole response.
    func send(method: String, path: String, body: [UInt8]?) throws(ClientError) -> Response {
        let connection = try Connection(socketPath: socketPath, timeout: timeout)
        defer { connection.close() }
        try connection.write(request(method: method, path: path, body: body))
        let (status, headers) = try connection.readHead()
        var collected: [UInt8] = []
        do { try connection.readBody(headers: headers) { collected += $0 } } catch let error as ClientError { throw error } catch {
            throw .protocolError("\(error)")
        }
        return Response(status: status, headers: headers, body: collected)
    }

    /// Sends a request whose body is read from `fd` until its end and sent as it is read
    /// (chunked transfer encoding, 256 KiB at a time), never held whole; then collects the whole
    /// response. The daemon may answer before it has read everything (an error): the answer is
    /// still read and returned.
    func upload(method: String, path: String, contentType: String, from fd: Int32) throws(ClientError) -> Response {
        let connection = try Connection(socketPath: socketPath, timeout: timeout)
        defer { connection.close() }
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: lockctl\r\nConnection: close\r\n"
            + "Content-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n"
        var sendFailure: ClientError?
        var inputFailure: ClientError?
        do throws(ClientError) {
            try connection.write(Array(head.utf8))
            var chunk = [UInt8](repeating: 0, count: 1 << 18)
            while true {
                let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    inputFailure = .protocolError("cannot read the input: \(String(cString: strerror(errno)))")
                    break
                }
                if n == 0 { break }
                try connection.write(Array(String(n, radix: 16).utf8) + [13, 10] + chunk[0..<n] + [13, 10])
            }
            // Never end a body that was not read whole: the daemon would import half a list.
            if let inputFailure { throw inputFailure }
            try connection.write(Array("0\r\n\r\n".utf8))
        } catch {
            if let inputFailure { throw inputFailure }
            // A daemon that refused early has closed its side; its answer says why.
            sendFailure = error
        }
        let status: Int
        let headers: [(String, String)]
        do { (status, headers) = try connection.readHead() } catch {
            throw sendFailure ?? error
        }
        var collected: [UInt8] = []
        do { try connection.readBody(headers: headers) { collected += $0 } } catch let error as ClientError { throw error } catch {
            throw .protocolError("\(error)")
        }
        return Response(status: status, headers: headers, body: collected)
    }

    /// Sends a request whose answer is a stream of lines and hands over each line as it arrives;
    /// returns when the daemon ends the stream. A non-200 answer goes to `onStatus` whole.
    func stream(path: String, onStatus: (Int, [UInt8]) throws -> Void, onLine: ([UInt8]) throws -> Void) throws {
        let connection = try Connection(socketPath: socketPath, timeout: nil)
        defer { connection.close() }
        try connection.write(request(method: "GET", path: path, body: nil))
        let (status, headers) = try connection.readHead()
        var pending: [UInt8] = []
        if status != 200 {
            try connection.readBody(headers: headers) { pending += $0 }
            try onStatus(status, pending)
            return
        }
        try connection.readBody(headers: headers) { chunk in
            pending += chunk
            var start = 0
            while let newline = pending[start...].firstIndex(of: 10) {
                let line = Array(pending[start..<newline])
                start = newline + 1
                if !line.isEmpty { try onLine(line) }
            }
            pending.removeFirst(start)
        }
    }

    private func request(method: String, path: String, body: [UInt8]?) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: lockctl\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }
}

/// A connected socket with a read buffer.
private final class Connection {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// Where `recv` writes, allocated once and never zeroed: a zeroed array per read touched
    /// sixteen pages each time, a quarter of what a `lockctl status` faults in.
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)

    deinit { chunk.deallocate() }

    init(socketPath: String, timeout: Duration?) throws(ClientError) {
        path = socketPath
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(socket: socketPath, reason: String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(fd)
            throw .unreachable(socket: socketPath, reason: "the path is too long for a socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        if let timeout {
            let (seconds, atto) = timeout.components
            var value = timeval(tv_sec: Int(seconds), tv_usec: Int(atto / 1_000_000_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .unreachable(socket: socketPath, reason: reason)
        }
    }

    func close() { Glibc.close(fd) }

    func write(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .protocolError("cannot send the request: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Fills the buffer; false at the end of the stream.
    private func fill() throws(ClientError) -> Bool {
        if atEnd { return false }
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        while true {
            let n = recv(fd, chunk.baseAddress, chunk.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw .protocolError("simplylockd did not answer in time") }
                throw .protocolError("cannot read the answer: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                atEnd = true
                return false
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            return true
        }
    }

    private func readLine() throws(ClientError) -> String {
        while true {
            if let newline = buffer[position...].firstIndex(of: 10) {
                var line = buffer[position..<newline]
                if line.last == 13 { line = line.dropLast() }
                position = newline + 1
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw .protocolError("connection closed before the response was complete") }
        }
    }

    func readHead() throws(ClientError) -> (Int, [(String, String)]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .protocolError("not an HTTP answer: \(statusLine.prefix(80))")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            // Trimmed by hand: Foundation's trimmingCharacters bridges through NSString, which
            // cost a `lockctl status` a fifth of its instructions.
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((line[..<colon].lowercased(), String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())))
        }
        return (status, headers)
    }

    /// Hands the body over piece by piece; errors thrown by `consume` pass through unchanged.
    func readBody(headers: [(String, String)], _ consume: ([UInt8]) throws -> Void) throws {
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        do {
            if header("transfer-encoding")?.lowercased().contains("chunked") == true {
                while true {
                    let sizeLine = try readLine()
                    guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16), size >= 0 else {
                        throw ClientError.protocolError("bad chunk size \(sizeLine.prefix(20))")
                    }
                    if size == 0 {
                        while try !readLine().isEmpty {}
                        return
                    }
                    try consume(try take(size))
                    _ = try readLine()
                }
            } else if let text = header("content-length") {
                guard let length = Int(text), length >= 0 else { throw ClientError.protocolError("bad Content-Length \(text)") }
                try consume(try take(length))
            } else {
                while true {
                    if position < buffer.count {
                        try consume(Array(buffer[position...]))
                        position = buffer.count
                    }
                    guard try fill() else { return }
                }
            }
        }
    }

    private func take(_ count: Int) throws(ClientError) -> [UInt8] {
        while buffer.count - position < count {
            guard try fill() else { throw .protocolError("connection closed before the response was complete") }
        }
        defer { position += count }
        return Array(buffer[position..<(position + count)])
    }
}
