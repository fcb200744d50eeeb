import Foundation

/// A request body decoded so that a field the body type does not know is an error, not a
/// silent no-op: `PATCH /v1/profiles/NAME` with `{"domains": []}` answered 200 and changed
/// nothing. The fields the type knows are those its `CodingKeys` accept (all of them, where the
/// type is made of parts that each read the same object, as the schedule requests are); every
/// body is a flat object, so the top level is where unknown fields are looked for.
struct StrictBody<Body: Decodable>: Decodable {
    let value: Body

    /// A field present in the body that `Body` does not decode.
    struct UnknownField: Error {
        let name: String
        let known: [String]
    }

    init(from decoder: any Decoder) throws {
        let recorder = KeyRecorder(base: decoder)
        value = try Body(from: recorder)
        guard let accepts = recorder.state.accepts else { return }
        let present = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        if let unknown = present.sorted().first(where: { !accepts($0) }) {
            // Key types cannot list their keys; the stored properties are the fields, as the
            // request types keep the synthesised coding keys (those of a part, for a part).
            func fields(of value: Any, depth: Int) -> [String] {
                Mirror(reflecting: value).children.flatMap { child -> [String] in
                    guard let label = child.label else { return [] }
                    if accepts(label) { return [label] }
                    return depth > 0 ? fields(of: child.value, depth: depth - 1) : []
                }
            }
            throw UnknownField(name: unknown, known: fields(of: value as Any, depth: 1).sorted())
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private final class State {
        var accepts: ((String) -> Bool)?
    }

    /// Passes every call to the real decoder, noting the key type of the top-level container.
    private struct KeyRecorder: Decoder {
        let base: any Decoder
        let state = State()
        var codingPath: [any CodingKey] { base.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            let container = try base.container(keyedBy: type)
            let earlier = state.accepts
            state.accepts = { Key(stringValue: $0) != nil || earlier?($0) == true }
            return container
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }
    }
}
