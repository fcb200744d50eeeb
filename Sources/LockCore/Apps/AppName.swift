/// How a profile names an application: a desktop id (`steam`, `org.gnome.Chess`), a flatpak id
/// (`org.telegram.desktop`), a snap name (`discord`) or the absolute path of a program. Which
/// of these it is, and whether it is installed, only the app catalog can say; this checks the
/// shape, so that a file or request with a name that can never match is refused where it is
/// written.
public enum AppName {
    /// The longest id (flatpak's limit for application ids).
    public static let maximumIDLength = 255
    /// The longest path (Linux's `PATH_MAX`).
    public static let maximumPathLength = 4096

    /// Checks what a person typed to name an app, before the catalog is asked (which also
    /// knows display names such as `Fake Game`): not empty, no control characters, not longer
    /// than a path may be.
    public static func validateTyped(_ name: String, field: String = "apps") throws(FieldError) {
        guard !name.isEmpty else { throw FieldError(field: field, value: name, reason: "an app name cannot be empty") }
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw FieldError(
                field: field, value: name,
                reason:
                    "\"\(name.debugDescription.dropFirst().dropLast())\" contains the control character U+\(String(control.value, radix: 16, uppercase: true))"
            )
        }
        guard name.utf8.count <= maximumPathLength else {
            throw FieldError(field: field, value: name, reason: "the name is longer than \(maximumPathLength) bytes")
        }
    }

    /// Checks one name as a profile keeps it.
    ///
    /// - Throws: `FieldError` for `field` naming the problem: empty, too long, control
    ///   characters, spaces or `/` in an id, or a relative path.
    public static func validate(_ name: String, field: String = "apps") throws(FieldError) {
        try validateTyped(name, field: field)
        if name.hasPrefix("/") {
            guard !name.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
                throw FieldError(field: field, value: name, reason: "\"\(name)\" contains . or .. components; give the program's real path")
            }
            return
        }
        if name.contains("/") {
            throw FieldError(
                field: field, value: name,
                reason: "\"\(name)\" is a relative path; give a desktop id, flatpak id, snap name or an absolute path")
        }
        guard name.utf8.count <= maximumIDLength else {
            throw FieldError(field: field, value: name, reason: "an app id is at most \(maximumIDLength) bytes")
        }
        if name.contains(where: \.isWhitespace) {
            throw FieldError(
                field: field, value: name,
                reason: "\"\(name)\" contains spaces; app ids have none (see `lockctl apps list` for the ids)")
        }
    }
}
