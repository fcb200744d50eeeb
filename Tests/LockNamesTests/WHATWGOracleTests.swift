import Foundation
import LockCore
import TestSupport
import Testing

@testable import LockNames

/// Node (its WHATWG URL parser is the reference browsers follow), if installed.
let nodeExecutable: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        for name in ["node", "nodejs"] where access("\(directory)/\(name)", X_OK) == 0 { return "\(directory)/\(name)" }
    }
    return nil
}()

/// Whether the suite's Python tools (with `idna`, the second reference) are there.
let python3CanMakeVenv = TestTools.python != nil

/// On CI a missing reference is a failure, not a skip: the test then runs and says so.
let runsOracle = (nodeExecutable != nil && python3CanMakeVenv) || ProcessInfo.processInfo.environment["CI"] != nil

/// A Python with the `idna` package: the suite's virtual environment (scripts/setup.sh).
enum PythonIDNA {
    static let version = "3.20"

    /// The venv's python, or why there is none.
    static func interpreter() -> Result<String, TestFailure> {
        guard let python = TestTools.python else {
            return .failure(TestFailure("the suite's Python tools are missing (run scripts/setup.sh)"))
        }
        let check = (try? ProcessRunner.run(python, ["-c", "import idna, sys; sys.exit(idna.__version__ != '\(version)')"]))?.status == 0
        return check ? .success(python) : .failure(TestFailure("idna \(version) is not importable by \(python)"))
    }
}

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

    /// A host without the trailing dot and the `*.` prefix that we drop.
    static func trimmed(_ host: String) -> String {
        var name = host
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix("*.") { name.removeFirst(2) }
        return name
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

    /// Python idna's verdict and our RFC 5893 check (Tests/Scripts/idna_reference.py).
    private struct SecondOpinion: Decodable {
        var host: String
        var bidi: Bool?
        var ascii: String?
        var error: String?
        var message: String?
    }

    /// The class of Python idna error that stands for the same refusal as our reason.
    static func sameRefusal(ours reason: String, python: String) -> Bool {
        if reason.contains("bidi") { return python == "bidi" }
        if reason.contains("zero-width") { return python == "context" }
        if reason.contains("cannot appear") { return python == "codepoint" }
        if reason.contains("punycode") || reason.contains("decodes to") || reason.contains("combining mark") {
            return python == "idna" || python == "codepoint"
        }
        return false
    }

    @Test(
        .enabled(if: runsOracle, "node or python3-venv is not installed (apt-get install nodejs python3-venv): the references are missing"))
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
        let result = try ProcessRunner.run(
            node,
            [
                Self.repository + "/Tests/Scripts/whatwg_hosts.js",
                directory + "/in.json", directory + "/out.json",
            ], timeout: 120)
        try #require(result.status == 0, "\(result)")
        let answers = try JSONDecoder().decode([Answer].self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/out.json")))
        try #require(answers.count == inputs.count)

        let python: String
        switch PythonIDNA.interpreter() {
        case .success(let path): python = path
        case .failure(let failure):
            Issue.record("the second reference (Python idna in a venv) is missing: \(failure)")
            return
        }
        let second = try ProcessRunner.run(
            python,
            [
                Self.repository + "/Tests/Scripts/idna_reference.py",
                directory + "/in.json", directory + "/second.json",
            ], timeout: 120)
        try #require(second.status == 0, "\(second)")
        let opinions = try JSONDecoder().decode(
            [SecondOpinion].self,
            from: Data(contentsOf: URL(fileURLWithPath: directory + "/second.json")))
        try #require(opinions.count == inputs.count)

        var referenceHosts = 0, referenceRefusals = 0, sameName = 0, bothRefuse = 0
        var documented: [String: Int] = [:]
        var arbitrated: [String: Int] = [:]
        var arbitratedExamples: [String: [String]] = [:]
        var disagreements: [String] = []
        for (index, (input, answer)) in zip(inputs, answers).enumerated() {
            let opinion = opinions[index]
            let ours: Result<DomainName, DomainName.InvalidError>
            do { ours = .success(try parser.parse(input)) } catch { ours = .failure(error) }
            let shown = "\(input.debugDescription) (\(input.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")))"
            // Where Node and we differ, ICU may be right and Node's ada wrong: Python's idna and
            // the RFC 5893 check decide, and each such case is counted and shown.
            func note(_ category: String, _ example: String) {
                arbitrated[category, default: 0] += 1
                if arbitratedExamples[category, default: []].count < 4 { arbitratedExamples[category, default: []].append(example) }
            }
            func arbitrate(_ difference: String) {
                switch ours {
                case .failure(let error) where error.reason.contains("bidi") && opinion.bidi == true:
                    note("bidi rule (UTS 46 CheckBidi): Node's ada lets it pass, RFC 5893 check refuses", "\(shown): \(error.reason)")
                case .failure(let error) where opinion.error.map({ Self.sameRefusal(ours: error.reason, python: $0) }) == true:
                    note(
                        "refused by ICU and Python idna, accepted by Node's ada",
                        "\(shown): \(error.reason) / idna: \(opinion.message ?? "")")
                case .success(let name) where opinion.ascii.map({ Self.expectedName(Self.trimmed($0), list: list) }) == name.value:
                    note("accepted by ICU and Python idna, refused by Node's ada", "\(shown): we and idna give \(name)")
                default:
                    disagreements.append(
                        "\(shown): \(difference) (idna: \(opinion.ascii ?? opinion.message ?? "?"), bidi rule broken: \(opinion.bidi.map(String.init) ?? "?"))"
                    )
                }
            }
            guard let host = answer.host else {
                referenceRefusals += 1
                switch ours {
                case .success(let name): arbitrate("reference refuses (\(answer.error ?? "")), we store \(name)")
                case .failure: bothRefuse += 1
                }
                continue
            }
            referenceHosts += 1
            if let rule = Self.documentedRefusal(of: host, list: list) {
                switch ours {
                case .success(let name):
                    disagreements.append("\(shown): reference gives \(host), refused by our rule \"\(rule)\", yet we store \(name)")
                case .failure: documented[rule, default: 0] += 1
                }
                continue
            }
            let expected = Self.expectedName(Self.trimmed(host), list: list)
            switch ours {
            case .success(let ourName) where ourName.value == expected: sameName += 1
            case .success(let ourName): disagreements.append("\(shown): reference gives \(host) (so \(expected)), we store \(ourName)")
            case .failure(let error): arbitrate("reference gives \(host), we refuse: \(error.reason)")
            }
        }
        print(
            """
            oracle (node \(nodeVersion(node))): \(inputs.count) inputs; reference gave a host for \(referenceHosts), refused \(referenceRefusals)
              agreements with Node: \(sameName + bothRefuse + documented.values.reduce(0, +)) = same name \(sameName) + both refuse \(bothRefuse) \
            + refused by our documented rules \(documented.values.reduce(0, +))
              documented differences: \(documented.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
              Node and ICU differ, decided by Python idna \(PythonIDNA.version) and an RFC 5893 check: \
            \(arbitrated.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
              disagreements: \(disagreements.count)
            """)
        for (category, examples) in arbitratedExamples.sorted(by: { $0.key < $1.key }) {
            for example in examples { print("  \(category), for example \(example)") }
        }
        for line in disagreements.prefix(400) { print("  disagreement: \(line)") }
        #expect(disagreements.count == 0, "disagreements with the WHATWG URL reference, listed above")
        #expect(inputs.count >= 4_000 && sameName >= 1_000 && bothRefuse >= 500, "the generated inputs no longer cover both outcomes")
    }

    private func nodeVersion(_ node: String) -> String {
        ((try? ProcessRunner.run(node, ["--version"]))?.stdout ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
