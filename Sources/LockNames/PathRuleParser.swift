import Foundation
import LockCore

extension DomainNameParser {
    /// The path rule for `input` (`youtube.com/shorts`, a scheme allowed and dropped): its host
    /// parsed as a blocked name is (UTS 46, no public suffix), its path checked.
    public func parsePathRule(_ input: String, field: String) throws(FieldError) -> PathRule {
        let trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts: (host: String, path: String)
        do { parts = try PathRule.split(trimmed) } catch { throw FieldError(field: field, value: error.value, reason: error.reason) }
        do { return PathRule(host: try parseEntry(parts.host), path: parts.path) } catch {
            throw FieldError(field: field, value: input, reason: error.description)
        }
    }
}
