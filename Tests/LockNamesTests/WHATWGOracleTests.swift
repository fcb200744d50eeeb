import Foundation
import LockCore
@testable import LockNames
import Testing
import TestSupport

/// Node (its WHATWG URL parser is the reference browsers follow), if installed.
let nodeExecutable: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        for name in ["node", "nodejs"] where access("\(directory)/\(name)", X_OK) == 0 { return "\(directory)/\(name)" }
    }
    return nil
}()

/// On CI a missing reference is a failure, not a skip: the test then runs and says so.
let runsOracle = nodeExecutable != nil || ProcessInfo.processInfo.environment["CI"] != nil

/// Compares the parser with Node's WHATWG URL parser over thousands of generated inputs.
@Suite struct WHATWGOracleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    /// Why we refuse a host the reference accepts, decided from the reference's own answer by
    /// our documented rules (never from our error message), or nil when none applies.
    static func documentedRefusal(of host: String, list: PublicSuffixList) -> String? {
        if host.hasPrefix("[") { return "IP address" }
        if IPv4Literal.endsInANumber(host) { return "IP address" }
        var name = host
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix("*.") { name.removeFirst(2) }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if labels.contains(where: \.isEmpty) { return "empty label" }
        if name.contains(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".")) }) {
            return "character other than a letter, digit or hyphen"
        }
        if labels.contains(where: { $0.utf8.count > 63 }) || name.utf8.count > 253 { return "too long" }
        if labels.contains(where: { $0.hasPrefix("-") || $0.hasSuffix("-") }) { return "hyphen at the start or end of a label" }
        if labels.count < 2 { return "single label" }
        if labels.last == "localhost" { return "localhost" }
        if list.isPublicSuffix(expectedName(name, list: list)) { return "public suffix" }
        return nil
    }

    /// The name we should store for a host the reference accepted: `www.` dropped unless what
    /// is left is a public suffix or a single label.
    static func expectedName(_ name: String, list: PublicSuffixList) -> String {
        guard name.hasPrefix("www.") else { return name }
        let rest = String(name.dropFirst(4))
        return rest.contains(".") && !list.isPublicSuffix(rest) ? rest : name
    }

    private struct Answer: Decodable {
        var host: String?
        var error: String?
    }

    @Test(.enabled(if: runsOracle, "node is not installed (apt-get install nodejs): the WHATWG URL reference is missing"))
    func agreesWithNodeOnGeneratedInputs() throws {
        guard let node = nodeExecutable else {
            Issue.record("CI is set but node is not installed: the oracle test cannot run")
            return
        }
        let list = try PublicSuffixListFile.load()
        let parser = DomainNameParser(publicSuffixes: list)
        var generator = OracleInputs(seed: 0x5EED_1DA5)
        let inputs = generator.make(count: 6_000)

        let directory = NSTemporaryDirectory() + "simplylock-oracle-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try JSONEncoder().encode(inputs).write(to: URL(fileURLWithPath: directory + "/in.json"))
        let result = try ProcessRunner.run(node, [Self.repository + "/Tests/Scripts/whatwg_hosts.js",
                                                  directory + "/in.json", directory + "/out.json"], timeout: 120)
        try #require(result.status == 0, "\(result)")
        let answers = try JSONDecoder().decode([Answer].self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/out.json")))
        try #require(answers.count == inputs.count)

        var referenceHosts = 0, referenceRefusals = 0, sameName = 0, bothRefuse = 0
        var documented: [String: Int] = [:]
        var disagreements: [String] = []
        for (input, answer) in zip(inputs, answers) {
            let ours: Result<DomainName, DomainName.InvalidError>
            do { ours = .success(try parser.parse(input)) } catch { ours = .failure(error) }
            let shown = "\(input.debugDescription) (\(input.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")))"
            guard let host = answer.host else {
                referenceRefusals += 1
                switch ours {
                case .success(let name): disagreements.append("\(shown): reference refuses (\(answer.error ?? "")), we store \(name)")
                case .failure: bothRefuse += 1
                }
                continue
            }
            referenceHosts += 1
            if let rule = Self.documentedRefusal(of: host, list: list) {
                switch ours {
                case .success(let name): disagreements.append("\(shown): reference gives \(host), refused by our rule \"\(rule)\", yet we store \(name)")
                case .failure: documented[rule, default: 0] += 1
                }
                continue
            }
            var name = host
            if name.hasSuffix(".") { name.removeLast() }
            if name.hasPrefix("*.") { name.removeFirst(2) }
            let expected = Self.expectedName(name, list: list)
            switch ours {
            case .success(let ourName) where ourName.value == expected: sameName += 1
            case .success(let ourName): disagreements.append("\(shown): reference gives \(host) (so \(expected)), we store \(ourName)")
            case .failure(let error): disagreements.append("\(shown): reference gives \(host), we refuse: \(error.reason)")
            }
        }
        print("""
            oracle (node \(nodeVersion(node))): \(inputs.count) inputs; reference gave a host for \(referenceHosts), refused \(referenceRefusals)
              agreements: \(sameName + bothRefuse + documented.values.reduce(0, +)) = same name \(sameName) + both refuse \(bothRefuse) \
            + refused by our documented rules \(documented.values.reduce(0, +))
              documented differences: \(documented.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
              disagreements: \(disagreements.count)
            """)
        for line in disagreements.prefix(400) { print("  disagreement: \(line)") }
        #expect(disagreements.count == 0, "disagreements with the WHATWG URL reference, listed above")
        #expect(inputs.count >= 4_000 && sameName >= 1_000 && bothRefuse >= 500, "the generated inputs no longer cover both outcomes")
    }

    private func nodeVersion(_ node: String) -> String {
        ((try? ProcessRunner.run(node, ["--version"]))?.stdout ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
