/// How a command names the values it sends: the daemon refuses a value by its request field
/// (`seconds: an extension must be at least 1s`, `for: required with --on`), and the user
/// should read the argument or option they typed (`DURATION: …`, `--for: …`).
///
/// A field the command does not list becomes `--field-name` (camelCase to kebab-case), which is
/// right for every option named after its field.
public struct FieldNames: Sendable {
    private let names: [String: String]

    /// Maps request fields to what the command calls them.
    public init(_ names: [String: String] = [:]) { self.names = names }

    /// What the command calls `field`.
    public func name(of field: String) -> String {
        if let name = names[field] { return name }
        if field.hasPrefix("-") || field.uppercased() == field { return field }
        var kebab = ""
        for character in field {
            if character.isUppercase { kebab += "-" + character.lowercased() } else { kebab.append(character == "_" ? "-" : character) }
        }
        return "--" + kebab
    }

    /// `message` with a leading `field: ` renamed; other messages unchanged.
    public func rename(_ message: String) -> String {
        guard let colon = message.firstIndex(of: ":") else { return message }
        let field = message[..<colon]
        guard !field.isEmpty, field.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }),
            field.first?.isLetter == true
        else { return message }
        let rest = message[message.index(after: colon)...]
        // `for: is required with --on` reads `--for is required with --on`.
        if rest.hasPrefix(" is ") || rest.hasPrefix(" applies ") { return name(of: String(field)) + rest }
        return name(of: String(field)) + message[colon...]
    }
}
