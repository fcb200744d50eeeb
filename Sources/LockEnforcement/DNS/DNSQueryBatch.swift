import LockCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One resolution run: A and AAAA queries for many names, sent over UDP with a bounded number
/// in flight, retried across the configured servers, with TCP for truncated answers, and cut
/// off at a deadline.
///
/// Synchronous by design: it is one `poll(2)` loop on a thread of its own, which handles
/// thousands of queries without a thread or task per name.
struct DNSQueryBatch {
    let configuration: ResolverConfiguration
    let deadline: Duration
    let maxInFlight: Int
    /// `SO_MARK` for the sockets, so that the DNS filter's redirect lets these queries pass;
    /// nil sets none.
    var mark: UInt32? = nil

    private struct Query {
        var nameIndex: Int
        var typeIndex: Int
        var tries: Int
        var edns: Bool
    }

    private struct Pending {
        var query: Query
        var server: Int
        var sentAt: ContinuousClock.Instant
    }

    private enum Outcome {
        case answered([IPNetwork])
        case failed(String)
    }

    private static let types: [DNSMessage.RecordType] = [.a, .aaaa]

    /// Resolves every name; every name gets an entry in the result.
    func run(_ names: [String]) -> [String: NameResolution] {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        let servers = configuration.servers.map { SocketAddress(address: $0.address, port: $0.port, scopeID: $0.scopeID) }
        var outcomes = Array(repeating: [Outcome?](repeating: nil, count: Self.types.count), count: names.count)
        let maxTries = max(1, configuration.attempts * max(1, servers.count))

        var sockets: [IPNetwork.Family: Int32] = [:]
        defer { for fd in sockets.values { close(fd) } }
        for family in Set(servers.map(\.family)) {
            let fd = socket(
                family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            if fd >= 0 {
                setMark(fd)
                sockets[family] = fd
            }
        }

        var fresh: [Query] = []
        fresh.reserveCapacity(names.count * Self.types.count)
        for nameIndex in names.indices {
            for typeIndex in Self.types.indices {
                fresh.append(Query(nameIndex: nameIndex, typeIndex: typeIndex, tries: 0, edns: true))
            }
        }
        var nextFresh = 0
        var retries: [Query] = []
        var pending: [UInt16: Pending] = [:]

        func fail(_ query: Query, _ reason: String) {
            outcomes[query.nameIndex][query.typeIndex] = .failed(reason)
        }

        // Moves a query on to its next try, or gives up once every server had its attempts.
        func retry(_ query: Query, _ reason: String) {
            var next = query
            next.tries += 1
            if next.tries >= maxTries { fail(query, reason) } else { retries.append(next) }
        }

        func send(_ query: Query) {
            guard !servers.isEmpty else { return fail(query, "no DNS servers configured") }
            let serverIndex = query.tries % servers.count
            let server = servers[serverIndex]
            guard let fd = sockets[server.family] else {
                return retry(query, "cannot open a UDP socket for \(server.family == .ipv4 ? "IPv4" : "IPv6")")
            }
            var id = UInt16.random(in: .min ... .max)
            while pending[id] != nil { id = UInt16.random(in: .min ... .max) }
            let type = Self.types[query.typeIndex]
            guard let packet = DNSMessage.query(id: id, name: names[query.nameIndex], type: type, edns: query.edns) else {
                return fail(query, "not a valid host name")
            }
            ExemptionLedger.of(mark: mark)?.sendingDatagram(to: Int(server.port))
            let sent = packet.withUnsafeBytes { bytes in
                server.withSockAddr { address, length in sendto(fd, bytes.baseAddress, bytes.count, 0, address, length) }
            }
            if sent < 0 {
                retry(query, "sending to \(configuration.servers[serverIndex]) failed: \(String(cString: strerror(errno)))")
            } else {
                pending[id] = Pending(query: query, server: serverIndex, sentAt: clock.now)
            }
        }

        func accept(_ message: DNSMessage, for entry: Pending) {
            let query = entry.query
            let serverText = configuration.servers[entry.server].description
            switch DNSMessage.ResponseCode(rawValue: message.rcode) {
            case .noError:
                outcomes[query.nameIndex][query.typeIndex] = .answered(message.addresses)
            case .nameError:
                outcomes[query.nameIndex][query.typeIndex] = .answered([])
            case .formatError where query.edns:
                // A server that predates EDNS0 rejects the OPT record; ask it again without.
                var plain = query
                plain.edns = false
                retries.append(plain)
            default:
                retry(query, "\(serverText) answered with response code \(message.rcode)")
            }
        }

        func receive(from fd: Int32) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = buffer.withUnsafeMutableBytes { bytes in
                    withUnsafeMutablePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                        }
                    }
                }
                if count < 0 { return }  // EAGAIN: drained; other errors: the timeout path retries
                guard let source = SocketAddress(storage: storage),
                    let message = DNSMessage(bytes: Array(buffer[0..<count])),
                    let entry = pending[message.id]
                else { continue }
                let query = entry.query
                // Anything that does not match what was asked, where it was asked, is ignored:
                // a late answer to an earlier try, or a spoofing attempt.
                guard source.matches(servers[entry.server]), message.isResponse, message.opcode == 0,
                    message.questionName == DNSMessage.canonical(names[query.nameIndex]),
                    message.questionType == Self.types[query.typeIndex].rawValue,
                    message.questionClass == 1
                else { continue }
                pending[message.id] = nil
                if message.truncated {
                    let remaining = clock.now.duration(to: end)
                    let timeout = min(configuration.timeout, max(.zero, remaining))
                    if let full = tcpQuery(
                        server: servers[entry.server], name: names[query.nameIndex],
                        type: Self.types[query.typeIndex], timeout: timeout)
                    {
                        accept(full, for: entry)
                    } else {
                        retry(query, "\(configuration.servers[entry.server]) truncated the answer and TCP failed")
                    }
                } else {
                    accept(message, for: entry)
                }
            }
        }

        while clock.now < end {
            while pending.count < maxInFlight {
                if let query = retries.popLast() {
                    send(query)
                } else if nextFresh < fresh.count {
                    send(fresh[nextFresh])
                    nextFresh += 1
                } else {
                    break
                }
            }
            if pending.isEmpty && retries.isEmpty && nextFresh >= fresh.count { break }
            if pending.isEmpty { continue }

            let now = clock.now
            let earliest = pending.values.map { $0.sentAt.advanced(by: configuration.timeout) }.min() ?? end
            let wake = min(earliest, end)
            let waitMilliseconds = max(0, Int32(clamping: Int64((now.duration(to: wake).seconds * 1000).rounded(.up))))
            var fds = sockets.values.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), waitMilliseconds)
            if ready > 0 {
                for entry in fds where entry.revents & Int16(POLLIN) != 0 { receive(from: entry.fd) }
            }

            let after = clock.now
            for (id, entry) in pending where entry.sentAt.advanced(by: configuration.timeout) <= after {
                pending[id] = nil
                retry(entry.query, "no answer from \(configuration.servers[entry.server]) within \(configuration.timeout)")
            }
        }

        var results: [String: NameResolution] = [:]
        results.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            var addresses: [IPNetwork] = []
            var errors: [String] = []
            for (typeIndex, type) in Self.types.enumerated() {
                switch outcomes[index][typeIndex] {
                case .answered(let found): addresses += found
                case .failed(let reason): errors.append("\(type == .a ? "A" : "AAAA"): \(reason)")
                case nil: errors.append("\(type == .a ? "A" : "AAAA"): not answered within the \(deadline) deadline")
                }
            }
            let merged = NameResolution(addresses: addresses, error: errors.isEmpty ? nil : errors.joined(separator: "; "))
            if let existing = results[name] {
                // The same name listed twice: keep the more complete answer.
                if !existing.isComplete { results[name] = merged }
            } else {
                results[name] = merged
            }
        }
        return results
    }

    /// One query over TCP (RFC 7766), for answers too large for UDP; nil on any failure.
    private func tcpQuery(
        server: SocketAddress, name: String, type: DNSMessage.RecordType,
        timeout: Duration
    ) -> DNSMessage? {
        let id = UInt16.random(in: .min ... .max)
        guard timeout > .zero, let packet = DNSMessage.query(id: id, name: name, type: type) else { return nil }
        let fd = socket(server.domain, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        setMark(fd)
        defer { close(fd) }
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)

        func wait(_ events: Int32) -> Bool {
            let remaining = clock.now.duration(to: end)
            guard remaining > .zero else { return false }
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            return poll(&entry, 1, Int32(clamping: Int64((remaining.seconds * 1000).rounded(.up)))) > 0
        }

        ExemptionLedger.of(mark: mark)?.connecting(to: Int(server.port))
        let connected = server.withSockAddr { connect(fd, $0, $1) }
        if connected != 0 {
            guard errno == EINPROGRESS, wait(POLLOUT) else { return nil }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else { return nil }
        }
        var framed = [UInt8(packet.count >> 8), UInt8(packet.count & 0xff)] + packet
        while !framed.isEmpty {
            let written = framed.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                framed.removeFirst(written)
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                guard wait(POLLOUT) else { return nil }
            } else {
                return nil
            }
        }

        func readExactly(_ count: Int) -> [UInt8]? {
            var result = [UInt8]()
            result.reserveCapacity(count)
            var chunk = [UInt8](repeating: 0, count: 4096)
            while result.count < count {
                let wanted = min(chunk.count, count - result.count)
                let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
                if got > 0 {
                    result += chunk[0..<got]
                } else if got < 0 && (errno == EAGAIN || errno == EINTR) {
                    guard wait(POLLIN) else { return nil }
                } else {
                    return nil
                }
            }
            return result
        }

        guard let header = readExactly(2) else { return nil }
        let length = Int(header[0]) << 8 | Int(header[1])
        guard let body = readExactly(length), let message = DNSMessage(bytes: body), message.id == id,
            message.isResponse, message.questionName == DNSMessage.canonical(name),
            message.questionType == type.rawValue
        else { return nil }
        return message
    }

    /// Without CAP_NET_ADMIN the mark cannot be set; the queries then go out unmarked (and are
    /// answered by the DNS filter while a redirect is in force).
    private func setMark(_ fd: Int32) {
        guard var value = mark else { return }
        _ = setsockopt(fd, SOL_SOCKET, DNSForwarder.soMark, &value, socklen_t(MemoryLayout<UInt32>.size))
    }
}
