import Foundation
import LockCore

/// Known DNS-over-HTTPS endpoints: names to resolve and fixed addresses, blocked on the
/// encrypted-DNS ports while any block is active.
///
/// The shipped list is `Resources/doh.txt`; its header explains the format and why only ports
/// 443 and 853 are refused (plain DNS on 53 to the same anycast addresses keeps working).
public struct DoHList: Sendable, Equatable {
    /// Host names of DoH endpoints, lowercase, sorted and unique.
    public var names: [String]
    /// Fixed anycast addresses and networks of DoH endpoints, sorted and unique.
    public var addresses: [IPNetwork]

    /// Creates a list; both parts are sorted and de-duplicated.
    public init(names: some Sequence<String> = [], addresses: some Sequence<IPNetwork> = []) {
        self.names = Array(Set(names.map { $0.lowercased() })).sorted()
        self.addresses = Array(Set(addresses)).sorted()
    }

    /// An empty list: blocks no DoH endpoint.
    public static let none = DoHList()

    /// Parses the list format: one name or address per line, `#` comments, blank lines.
    ///
    /// - Parameter source: named in error messages (a path).
    /// - Throws: `DoHListError` naming the line of the first entry that is neither.
    public init(parsing text: String, source: String = "doh list") throws(DoHListError) {
        var names: [String] = []
        var addresses: [IPNetwork] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if let network = try? IPNetwork(parsing: line) {
                addresses.append(network)
            } else if DNSMessage.isValidHostName(line), !(line.split(separator: ".").last?.allSatisfy(\.isNumber) ?? true) {
                // An all-numeric last label is a mistyped address, not a name (no such TLD).
                names.append(line.lowercased())
            } else {
                throw DoHListError(
                    source: source, line: index + 1,
                    message: "\"\(line)\" is neither a host name nor an IP address or network")
            }
        }
        self.init(names: names, addresses: addresses)
    }

    /// Reads a list file.
    public static func load(contentsOf url: URL) throws -> DoHList {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try DoHList(parsing: text, source: url.path)
    }
}
