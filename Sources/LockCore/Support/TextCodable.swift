/// A value stored and sent as the text a user would type, and parsed (so validated again)
/// when read back: a damaged state file or request gives a decoding error naming the problem,
/// never a value that could not have been typed.
public protocol TextCodable: Codable {
    /// What parsing throws.
    associatedtype ParseError: Error & CustomStringConvertible
    /// Parses the text form.
    init(parsing text: String) throws(ParseError)
    /// The text form, which parses back to an equal value.
    var codableText: String { get }
}

extension TextCodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(codableText)
    }
}
