/// The rule for names that become file names and appear on the command line (profiles,
/// schedules): 1–40 characters of a-z, 0-9 and '-', not starting with '-'.
public enum NameRule {
    /// Checks `name`; `kind` words the error ("a profile name cannot be empty").
    public static func validate(_ name: String, kind: String) throws(FieldError) {
        guard !name.isEmpty else { throw FieldError(field: "name", value: name, reason: "a \(kind) name cannot be empty") }
        guard name.count <= 40 else {
            throw FieldError(field: "name", value: name, reason: "\"\(name)\" is longer than 40 characters")
        }
        let ok = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        guard ok, name.first != "-" else {
            throw FieldError(
                field: "name", value: name,
                reason: "\"\(name)\" may only contain a-z, 0-9 and '-', and must not start with '-'")
        }
    }
}
