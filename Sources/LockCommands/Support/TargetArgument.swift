import Foundation

/// `--for kids,office` (or repeated): where a block applies; the daemon checks the names.
enum TargetArgument {
    /// The names given, split at commas; nil when none were (this machine).
    static func names(_ values: [String]) -> [String]? {
        let names = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return names.isEmpty ? nil : names
    }
}
