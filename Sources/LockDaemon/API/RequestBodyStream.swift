import LockProtocol

/// The body of a request that is read as it arrives (`TextStream` endpoints), piece by piece
/// by its handler: the server never holds it whole. Enforces the body limit the request was
/// admitted with.
///
/// Read by one task at a time (the handler's); hence unchecked.
final class RequestBodyStream: @unchecked Sendable {
    private let pull: () async throws -> [UInt8]?
    private let limit: Int
    private var received = 0
    private(set) var isFinished = false

    /// A body whose pieces come from `pull` (nil at the end), at most `limit` bytes in all.
    init(limit: Int, pull: @escaping () async throws -> [UInt8]?) {
        self.limit = limit
        self.pull = pull
    }

    /// A body already in memory, handed out in pieces (requests made in-process, tests).
    static func buffered(_ bytes: [UInt8], pieceSize: Int = 1 << 16, limit: Int = .max) -> RequestBodyStream {
        var offset = 0
        return RequestBodyStream(limit: limit) {
            guard offset < bytes.count else { return nil }
            defer { offset += pieceSize }
            return Array(bytes[offset..<min(bytes.count, offset + pieceSize)])
        }
    }

    /// Bytes read so far.
    var count: Int { received }

    /// The next piece, or nil at the end of the body.
    func next() async throws(APIError) -> [UInt8]? {
        guard !isFinished else { return nil }
        let piece: [UInt8]?
        do { piece = try await pull() } catch { throw APIError(.badRequest, "the request body ended early: \(error)") }
        guard let piece else {
            isFinished = true
            return nil
        }
        received += piece.count
        guard received <= limit else { throw APIError(.tooLarge, "request body larger than \(limit) bytes") }
        return piece
    }
}
