import Foundation
import Testing
import TestSupport

/// The conformance check needs python3 with PyYAML, jsonschema and openapi-spec-validator
/// (installed by scripts/test.sh).
let pythonCanCheckOpenAPI: Bool = {
    guard let result = try? ProcessRunner.run("/usr/bin/env", ["python3", "-c", "import yaml, jsonschema, openapi_spec_validator"]) else {
        return false
    }
    return result.status == 0
}()

@Suite("The OpenAPI document matches the server")
struct OpenAPITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    @Test("every documented operation, answered by the real daemon, conforms to docs/openapi.yaml",
          .enabled(if: pythonCanCheckOpenAPI, "python3 with yaml, jsonschema and openapi-spec-validator is not available"))
    func conformance() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let result = try ProcessRunner.run("/usr/bin/env", ["python3", Self.repository + "/Tests/Scripts/openapi_conformance.py",
                                                           root.socketPath, Self.repository + "/docs/openapi.yaml"], timeout: 60)
        #expect(result.status == 0, "\(result)\n\(daemon.log().suffix(2000))")
    }

    @Test("every route the server knows is documented")
    func routesDocumented() throws {
        let document = try String(contentsOfFile: Self.repository + "/docs/openapi.yaml", encoding: .utf8)
        let source = try String(contentsOfFile: Self.repository + "/Sources/LockProtocol/Route.swift", encoding: .utf8)
        // Route.swift lists every path; each must appear in the document.
        let paths = source.matches(of: /"(\/v1\/[^"\\]*)/).map { String($0.1) }
        #expect(!paths.isEmpty)
        for path in paths {
            let template = path.hasSuffix("/") ? path : path
            #expect(document.contains(template), "\(path) from Route.swift is not in docs/openapi.yaml")
        }
    }
}
