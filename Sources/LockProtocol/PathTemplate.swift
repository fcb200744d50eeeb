/// A path such as `/v1/sessions/{ref}/extend`: literal segments and named parameters, each
/// parameter one whole segment.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    /// One segment of a path.
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// The segments, without the leading empty one.
    public let segments: [Segment]

    /// Parses `/v1/a/{b}`; a segment in braces is a parameter.
    public init(_ text: String) {
        segments = text.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The parameters' values when `path` (decoded segments) has this shape, else nil.
    public func match(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let literal): guard literal == part else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                values[name] = part
            }
        }
        return values
    }

    /// A concrete path with `values` in place of the parameters, in order, each escaped.
    public func path(_ values: [String]) -> String {
        var remaining = values[...]
        var path = ""
        for segment in segments {
            path += "/"
            switch segment {
            case .literal(let literal): path += literal
            case .parameter: path += PathTemplate.escape(remaining.popFirst() ?? "")
            }
        }
        return path.isEmpty ? "/" : path
    }

    /// `/v1/sessions/{ref}/extend`.
    public var description: String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let literal): literal
                case .parameter(let name): "{\(name)}"
                }
            }.joined(separator: "/")
    }

    /// Percent-encodes one path segment or query value (RFC 3986 unreserved characters stay).
    public static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// Decodes `%XX` escapes; nil when an escape is malformed or the bytes are not UTF-8.
    public static func unescape<S: StringProtocol>(_ text: S, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.popFirst().flatMap(hexValue), let low = iterator.popFirst().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else if plusIsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
