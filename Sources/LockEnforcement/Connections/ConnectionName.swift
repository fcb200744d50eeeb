/// The name a new TCP connection asks for, read from the first bytes the client sends: the
/// server name (SNI) of a TLS ClientHello, or the host of a plain HTTP request (its `Host:`
/// header, an absolute request target, or a proxy's `CONNECT host:port`).
///
/// Pure: the caller collects the connection's first payload bytes (a ClientHello with
/// post-quantum key shares spans two segments) and asks again until the answer is not
/// `.needMore`. Names come back lowercased, without a trailing dot or port.
public enum ConnectionName: Sendable, Equatable {
    /// The connection names this host.
    case name(String)
    /// A complete ClientHello or request head that names no host (a connection to an address).
    case unnamed
    /// The bytes so far are the beginning of a ClientHello or request head.
    case needMore
    /// Neither TLS nor HTTP (SSH, a database, a server that speaks first): nothing to check.
    case other

    /// The most bytes worth collecting: a ClientHello or request head longer than this is
    /// judged on what it has (`.unnamed` when the name was not among them).
    public static let limit = 16 * 1024

    /// Reads `bytes`, the first bytes the client sent on the connection.
    public static func parse(_ bytes: some Collection<UInt8>) -> ConnectionName {
        let data = Array(bytes.prefix(limit))
        guard let first = data.first else { return .needMore }
        if first == 0x16 { return parseTLS(data, complete: bytes.count >= limit) }
        return parseHTTP(data, complete: bytes.count >= limit)
    }

    // MARK: - TLS

    /// Joins the handshake records (a ClientHello may be split over several), then walks the
    /// ClientHello to its server_name extension.
    private static func parseTLS(_ data: [UInt8], complete: Bool) -> ConnectionName {
        guard data.count < 2 || data[1] == 0x03 else { return .other }
        var handshake: [UInt8] = []
        var offset = 0
        while offset + 5 <= data.count {
            guard data[offset] == 0x16, data[offset + 1] == 0x03 else { return handshake.isEmpty ? .other : .unnamed }
            let length = Int(data[offset + 3]) << 8 | Int(data[offset + 4])
            let end = min(offset + 5 + length, data.count)
            handshake += data[(offset + 5)..<end]
            offset += 5 + length
            if let answer = clientHello(handshake) { return answer }
        }
        if offset < data.count, data.count - offset < 5 || data[offset] == 0x16 { return complete ? .unnamed : .needMore }
        if let answer = clientHello(handshake) { return answer }
        return complete ? .unnamed : .needMore
    }

    /// The answer once `handshake` holds enough of a ClientHello; nil when more is needed.
    private static func clientHello(_ handshake: [UInt8]) -> ConnectionName? {
        var reader = Reader(bytes: handshake)
        guard let type = reader.u8() else { return nil }
        guard type == 1 else { return .other }
        guard let length = reader.u24() else { return nil }
        // Fields in order; running out of bytes means the rest is still on its way.
        guard reader.skip(2 + 32), let session = reader.u8(), reader.skip(Int(session)),
            let suites = reader.u16(), reader.skip(Int(suites)),
            let compression = reader.u8(), reader.skip(Int(compression))
        else { return handshake.count >= 4 + length ? .unnamed : nil }
        guard let extensionsLength = reader.u16() else { return handshake.count >= 4 + length ? .unnamed : nil }
        let extensionsEnd = reader.offset + Int(extensionsLength)
        while reader.offset + 4 <= min(extensionsEnd, handshake.count) {
            guard let kind = reader.u16(), let size = reader.u16() else { return nil }
            guard kind == 0 else {
                guard reader.skip(Int(size)) else { return nil }
                continue
            }
            guard var names = reader.take(Int(size)) else { return nil }
            guard names.u16() != nil else { return .unnamed }
            while let nameType = names.u8(), let nameLength = names.u16(), let name = names.take(Int(nameLength)) {
                if nameType == 0 { return hostName(name.rest) }
            }
            return .unnamed
        }
        return reader.offset >= extensionsEnd || handshake.count >= 4 + length ? .unnamed : nil
    }

    // MARK: - HTTP

    private static let methods: [[UInt8]] = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE", "PRI"]
        .map { Array($0.utf8) + [0x20] }

    private static func parseHTTP(_ data: [UInt8], complete: Bool) -> ConnectionName {
        let isMethod = methods.contains { method in
            data.count >= method.count ? data.starts(with: method) : method.starts(with: data)
        }
        guard isMethod else { return .other }
        guard let lineEnd = find([0x0d, 0x0a], in: data) else { return complete ? .unnamed : .needMore }
        let requestLine = data[..<lineEnd].split(separator: 0x20)
        if requestLine.count >= 2 {
            let method = String(decoding: requestLine[0], as: UTF8.self)
            let target = String(decoding: requestLine[1], as: UTF8.self)
            if method == "CONNECT" { return hostName(Array(target.utf8)) }
            let lower = target.lowercased()
            for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
                let authority = lower.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
                return hostName(Array(authority.split(separator: "@").last.map(String.init)?.utf8 ?? "".utf8))
            }
        }
        let headEnd = find([0x0d, 0x0a, 0x0d, 0x0a], in: data)
        let head = headEnd.map { Array(data[..<$0]) } ?? data
        for line in split(head, by: [0x0d, 0x0a]).dropFirst() {
            guard line.count > 5, String(decoding: line.prefix(5), as: UTF8.self).lowercased() == "host:" else { continue }
            return hostName(Array(line.dropFirst(5)))
        }
        return headEnd != nil || complete ? .unnamed : .needMore
    }

    // MARK: - Helpers

    /// A host as written in SNI, `Host:` or an authority: blanks trimmed, port, brackets and
    /// trailing dot removed, lowercased; an address literal names no host.
    private static func hostName(_ raw: [UInt8]) -> ConnectionName {
        var text = String(decoding: raw, as: UTF8.self).trimmingBlanks().lowercased()
        if text.hasPrefix("[") { return .unnamed }
        if let colon = text.lastIndex(of: ":"), text[text.index(after: colon)...].allSatisfy(\.isNumber) {
            text = String(text[..<colon])
        }
        while text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty, !text.contains(":") else { return .unnamed }
        if text.split(separator: ".").count == 4, text.allSatisfy({ $0.isNumber || $0 == "." }) { return .unnamed }
        return .name(text)
    }

    private static func find(_ needle: [UInt8], in data: [UInt8]) -> Int? {
        guard data.count >= needle.count else { return nil }
        for index in 0...(data.count - needle.count) where data[index] == needle[0] {
            if data[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    private static func split(_ data: [UInt8], by separator: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + separator.count <= data.count {
            if data[index..<(index + separator.count)].elementsEqual(separator) {
                parts.append(data[start..<index])
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        parts.append(data[start...])
        return parts
    }

    /// Big-endian fields of a byte string; nil when it ends first.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var rest: [UInt8] { Array(bytes[min(offset, bytes.count)...]) }

        mutating func u8() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }
        mutating func u16() -> UInt16? {
            guard offset + 2 <= bytes.count else { return nil }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        mutating func u24() -> Int? {
            guard offset + 3 <= bytes.count else { return nil }
            defer { offset += 3 }
            return Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        }
        mutating func skip(_ count: Int) -> Bool {
            guard offset + count <= bytes.count else { return false }
            offset += count
            return true
        }
        mutating func take(_ count: Int) -> Reader? {
            guard offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return Reader(bytes: Array(bytes[offset..<(offset + count)]))
        }
    }
}

extension String {
    fileprivate func trimmingBlanks() -> String {
        let blanks: Set<Character> = [" ", "\t"]
        guard let start = firstIndex(where: { !blanks.contains($0) }), let end = lastIndex(where: { !blanks.contains($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
