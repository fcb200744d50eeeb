import Foundation

/// Constants of the control API shared by the daemon and its clients.
public enum API {
    /// Version of the program, reported by `lockctl version` and `GET /v1/status`.
    public static let softwareVersion = "0.1.0"
    /// Group whose members may change things through the socket, besides root.
    public static let adminGroup = "simplylock"
    /// Environment variable that overrides the socket path for clients.
    public static let socketEnvironmentVariable = "SIMPLYLOCK_SOCKET"
    /// Largest request body the daemon accepts from callers who may change things.
    public static let maxBodyBytes = 4 << 20
    /// Largest request body accepted from everyone else (reads carry no body).
    public static let maxReaderBodyBytes = 4 << 10
    /// Largest blocklist text an import may send (`PUT /v1/lists/{name}`, read as it streams
    /// in, never held whole; only callers who may change things get this far).
    public static let maxListBodyBytes = 1 << 30

    /// The JSON encoder both sides use: RFC 3339 dates, sorted keys.
    public static func makeEncoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting =
            pretty
            ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The JSON decoder both sides use.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
