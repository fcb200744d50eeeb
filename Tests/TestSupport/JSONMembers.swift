import Foundation

/// The members of one JSON object read through `Decodable`, for tests whose oracle is the
/// encoded form itself (which keys were written, and each scalar as JSON wrote it) rather than a
/// type of ours: a number as its digits (`1500`, `0.25`), a boolean as `true`/`false`, a string as
/// is. Nested objects and arrays are known by their key only.
public struct JSONMembers: Decodable, Sendable {
    /// Every key of the object.
    public let keys: Set<String>
    /// The keys whose values are scalars, each with its value as text.
    public let scalars: [String: String]

    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: AnyKey.self)
        var scalars: [String: String] = [:]
        for key in object.allKeys {
            if let value = try? object.decode(Int.self, forKey: key) {
                scalars[key.stringValue] = "\(value)"
            } else if let value = try? object.decode(Double.self, forKey: key) {
                scalars[key.stringValue] = "\(value)"
            } else if let value = try? object.decode(Bool.self, forKey: key) {
                scalars[key.stringValue] = "\(value)"
            } else if let value = try? object.decode(String.self, forKey: key) {
                scalars[key.stringValue] = value
            }
        }
        keys = Set(object.allKeys.map(\.stringValue))
        self.scalars = scalars
    }

    /// Reads `data`, which must hold one JSON object.
    public static func read(_ data: Data) throws -> JSONMembers { try JSONDecoder().decode(JSONMembers.self, from: data) }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
