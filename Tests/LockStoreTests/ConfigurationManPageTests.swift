import Foundation
import TestSupport
import Testing

@testable import LockStore

/// `simplylockd.toml(5)` documents exactly the keys the daemon reads.
@Suite struct ConfigurationManPageTests {
    static let page: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/man/simplylockd.toml.5")
        return (try? String(contentsOf: path.standardized, encoding: .utf8)) ?? ""
    }()

    /// Every `.It Ic KEY` of the page, by the subsection it is in ("" for the top level).
    static var documented: [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var section = ""
        for line in page.split(separator: "\n") {
            if line.hasPrefix(".Ss ") {
                let title = line.dropFirst(4)
                section = title.hasPrefix("The \\&[") ? String(title.dropFirst(7).prefix { $0 != "\\" }) : ""
            } else if line.hasPrefix(".It Ic ") {
                result[section, default: []].insert(String(line.dropFirst(7).prefix { $0 != " " }))
            }
        }
        return result
    }

    @Test func everyKeyIsDocumented() throws {
        try #require(!Self.page.isEmpty, "docs/man/simplylockd.toml.5 not found")
        let sections = [PomodoroSection.name, AppsSection.name, FrictionSection.name, InsightsSection.name] + LANSection.names
        let expected: [String: Set<String>] = [
            "": DaemonConfiguration.keys.subtracting(sections),
            PomodoroSection.name: PomodoroSection.keys,
            AppsSection.name: AppsSection.keys,
            FrictionSection.name: FrictionSection.keys,
            InsightsSection.name: InsightsSection.keys,
            "unbound": LANSection.unboundKeys,
            "dnsmasq": LANSection.dnsmasqKeys,
        ]
        let documented = Self.documented
        for (section, keys) in expected {
            let name = section.isEmpty ? "the top level" : "[\(section)]"
            #expect(
                keys.subtracting(documented[section] ?? []).isEmpty,
                "undocumented in \(name): \(keys.subtracting(documented[section] ?? []).sorted())")
            #expect(
                (documented[section] ?? []).subtracting(keys).isEmpty,
                "documented but not read in \(name): \((documented[section] ?? []).subtracting(keys).sorted())")
        }
        for section in sections {
            #expect(Self.page.contains(".Ss The \\&[\(section)\\&] section"), "no subsection for [\(section)]")
        }
    }
}
