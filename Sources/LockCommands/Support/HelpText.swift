/// Touches to the argument parser's help texts.
enum HelpText {
    static let globalUsage = "[--root <dir>] [--socket <path>] [--json]"

    /// A usage line with the global options, which every command takes, shown as `[<options>]`, as the parser shortens long ones.
    static func compactUsage(_ usage: String) -> String {
        var text = usage.replacingOccurrences(of: "Usage: ", with: "").replacingOccurrences(of: "USAGE: ", with: "")
        text = text.replacingOccurrences(of: globalUsage, with: "[<options>]")
        return text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// A help text as printed: the global options in the usage line folded into `[<options>]`.
    static func tidy(_ text: String) -> String {
        text.replacingOccurrences(of: globalUsage, with: "[<options>]")
    }
}
