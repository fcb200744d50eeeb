/// The `Exec` value of a desktop entry split into arguments, as the Desktop Entry
/// Specification says: arguments separated by spaces, double quotes around arguments with
/// reserved characters (inside them `\"`, `` \` ``, `\$` and `\\` stand for the character), and
/// field codes (`%f %F %u %U %i %c %k`, and the deprecated `%d %D %n %N %v %m`) removed, `%%`
/// kept as `%`. An argument that was only a field code disappears entirely.
///
/// Real files break the rules in ways launchers accept, and so does this parser: single quotes
/// (`sh -c 'a b'`) and a backslash outside quotes escape as in a shell. An unterminated quote or
/// an unknown field code is an error, since the arguments cannot be known.
public struct DesktopExec: Sendable, Equatable {
    /// The arguments, program first; never empty.
    public var arguments: [String]

    /// The program as written (a name to look up on PATH, or a path).
    public var program: String { arguments[0] }

    static let fieldCodes: Set<Character> = ["f", "F", "u", "U", "i", "c", "k", "d", "D", "n", "N", "v", "m"]

    /// Splits `value` (an `Exec` value with the general escapes already resolved).
    public init(parsing value: String) throws(DesktopEntryError) {
        var arguments: [String] = []
        var current = ""
        // Whether the current argument exists even if empty (`""`), as opposed to one made only
        // of field codes, which is dropped.
        var started = false
        var sawOnlyFieldCodes = false
        var quote: Character?
        let characters = Array(value)
        var index = 0
        func finish() {
            if started, !(sawOnlyFieldCodes && current.isEmpty) { arguments.append(current) }
            current = ""
            started = false
            sawOnlyFieldCodes = false
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\", index < characters.count,
                    "\"`$\\".contains(characters[index])
                {
                    current.append(characters[index])
                    index += 1
                } else if character == "%" {
                    try Self.fieldCode(characters, &index, value, into: &current, fieldOnly: &sawOnlyFieldCodes)
                    sawOnlyFieldCodes = false
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t", "\n":
                finish()
            case "\"", "'":
                quote = character
                started = true
                sawOnlyFieldCodes = false
            case "\\":
                started = true
                sawOnlyFieldCodes = false
                if index < characters.count {
                    current.append(characters[index])
                    index += 1
                }
            case "%":
                let wasStarted = started
                started = true
                var fieldOnly = !wasStarted || sawOnlyFieldCodes
                try Self.fieldCode(characters, &index, value, into: &current, fieldOnly: &fieldOnly)
                sawOnlyFieldCodes = fieldOnly
            default:
                started = true
                sawOnlyFieldCodes = false
                current.append(character)
            }
        }
        if quote != nil { throw .unterminatedQuote(exec: value) }
        finish()
        guard !arguments.isEmpty, !arguments[0].isEmpty else { throw .emptyExec }
        self.arguments = arguments
    }

    /// Creates an already split command line.
    public init(arguments: [String]) {
        precondition(!arguments.isEmpty, "a command line has a program")
        self.arguments = arguments
    }

    /// Consumes the letter after `%`: `%%` appends `%` (and makes the argument real), a field
    /// code appends nothing.
    private static func fieldCode(
        _ characters: [Character], _ index: inout Int, _ value: String,
        into current: inout String, fieldOnly: inout Bool
    ) throws(DesktopEntryError) {
        guard index < characters.count else { throw .unknownFieldCode(exec: value, code: "%") }
        let code = characters[index]
        index += 1
        if code == "%" {
            current.append("%")
            fieldOnly = false
        } else if !fieldCodes.contains(code) {
            throw .unknownFieldCode(exec: value, code: "%\(code)")
        }
    }

    /// What this command line launches: a program directly, a flatpak or a snap.
    public var launch: AppLaunch { AppLaunch(arguments) }
}
