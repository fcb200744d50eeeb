import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// The conformance check needs the suite's Python tools (scripts/setup.sh makes them).
let openAPIToolsMissing = TestTools.missing {
    TestTools.python == nil ? "the suite's Python tools are missing (run scripts/setup.sh)" : nil
}

@Suite("The OpenAPI document matches the server")
struct OpenAPITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    @Test(
        "every documented operation, answered by the real daemon, conforms to docs/openapi.yaml",
        .enabled(if: openAPIToolsMissing == nil, "\(openAPIToolsMissing ?? "")"))
    func conformance() throws {
        let root = try TestRoot()
        // An installed app for the app operations (the catalog reads ROOT/usr/share/applications).
        try root.write("opt/confgame/confgame", "#!/bin/sh\necho game\n")
        chmod(root.path + "/opt/confgame/confgame", 0o755)
        try root.write(
            "usr/share/applications/confgame.desktop",
            "[Desktop Entry]\nType=Application\nName=Conformance Game\nExec=\(root.path)/opt/confgame/confgame\nCategories=Game;\n")
        let daemon = try DaemonProcess(root: root)
        let python = try #require(TestTools.python, "the suite's Python tools are missing (run scripts/setup.sh)")
        let result = try ProcessRunner.run(
            python,
            [
                Self.repository + "/Tests/Scripts/openapi_conformance.py",
                root.socketPath, Self.repository + "/docs/openapi.yaml",
            ], timeout: 60)
        #expect(result.status == 0, "\(result)\n\(daemon.log().suffix(2000))")
    }

    @Test("every endpoint of the shared table is documented with its method")
    func endpointsDocumented() throws {
        let document = try String(contentsOfFile: Self.repository + "/docs/openapi.yaml", encoding: .utf8)
        // Operations by path: the two-space-indented path keys and the four-space method keys under them.
        var operations: [String: Set<String>] = [:]
        var current: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "),
                !line.hasPrefix("     "), let path = current, line.hasSuffix(":")
            {
                operations[path, default: []].insert(
                    line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ":", with: "").uppercased())
            } else if !line.hasPrefix(" "), !line.isEmpty {
                current = nil
            }
        }
        #expect(!operations.isEmpty)
        for endpoint in Endpoints.all {
            // The document names the path parameter as the table does.
            let path = endpoint.template.description
            #expect(operations[path]?.contains(endpoint.method.rawValue) == true, "\(endpoint.method) \(path) is not in docs/openapi.yaml")
        }
    }
}
