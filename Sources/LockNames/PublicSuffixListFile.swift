import Foundation

/// Reads the Public Suffix List that Debian's `publicsuffix` package installs.
public enum PublicSuffixListFile {
    /// Where Debian's `publicsuffix` package puts the list.
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// Why the list could not be used.
    public struct LoadError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file that was read.
        public var path: String
        /// What went wrong.
        public var problem: String
        public var description: String {
            "the public suffix list \(path) \(problem) (install Debian's publicsuffix package); "
                + "until it can be read, public suffixes such as co.uk or github.io are not refused"
        }
    }

    /// Loads and parses the list at `path`.
    public static func load(_ path: String = debianPath) throws(LoadError) -> PublicSuffixList {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(path: path, problem: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "is missing")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw LoadError(path: path, problem: "is not UTF-8 text") }
        let list = PublicSuffixList(text: text)
        guard list.ruleCount > 0 else { throw LoadError(path: path, problem: "contains no rules") }
        return list
    }
}
