import Foundation
import Glibc
import LockCore
import LockPlatform
import TestSupport
import Testing

@testable import LockEnforcement

/// Loaders and interpreters are recognised by content, not by name or ownership: copies root
/// made under other names (plain files in a scratch directory; nothing is marked or blocked).
@Suite struct ProgramRunnersTests {
    static let loader = "/lib64/ld-linux-x86-64.so.2"

    final class Scratch {
        let root: String
        init() throws {
            var template = Array("/tmp/runners-XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp failed") }
            root = String(cString: template)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// A root-owned copy (mode 755) of `source` named `name`, with `extra` appended.
        func copy(_ source: String, as name: String, appending extra: [UInt8] = []) throws -> String {
            let path = root + "/" + name
            var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            bytes.append(contentsOf: extra)
            try bytes.write(to: URL(fileURLWithPath: path))
            chmod(path, 0o755)
            return path
        }
    }

    @Test(.enabled(if: access(loader, R_OK) == 0, "no x86-64 dynamic loader"))
    func theLoaderIsRecognisedByItsHeaderWhateverItsName() throws {
        let scratch = try Scratch()
        let runners = ProgramRunners(directories: [])
        #expect(runners.recognises(try scratch.copy(Self.loader, as: "runner")))
        // Appended bytes change nothing in the headers.
        #expect(runners.recognises(try scratch.copy(Self.loader, as: "runner2", appending: [0, 1, 2])))
        // Shared libraries, dynamic and static programs are not loaders.
        for other in ["/lib/x86_64-linux-gnu/libc.so.6", "/bin/dash", "/bin/true"] where access(other, R_OK) == 0 {
            #expect(!runners.recognises(try scratch.copy(other, as: "x" + ProgramNames.baseName(other))), "\(other)")
        }
        if let game = FakeGame.binary { #expect(!runners.recognises(try scratch.copy(game, as: "game"))) }
        #expect(!runners.recognises(scratch.root + "/missing"))
    }

    @Test func interpretersAreRecognisedByTheirBytes() throws {
        let game = try #require(FakeGame.binary)
        let scratch = try Scratch()
        // A machine whose only interpreter is a fake `python3` (the fake game's bytes).
        mkdir(scratch.root + "/bin", 0o755)
        let interpreter = try scratch.copy(game, as: "bin/python3")
        let runners = ProgramRunners(directories: [scratch.root + "/bin"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: interpreter)[.size] as? Int)
        #expect(runners.sizes == [Int64(size)])
        let renamed = try scratch.copy(game, as: "snake")
        #expect(runners.recognises(renamed))
        // Other bytes of the same size are another program; so is an edited copy (another size
        // is never read).
        var changed = try Data(contentsOf: URL(fileURLWithPath: game))
        changed[changed.count / 2] ^= 0xFF
        try changed.write(to: URL(fileURLWithPath: scratch.root + "/changed"))
        #expect(!runners.recognises(scratch.root + "/changed"))
        #expect(!runners.recognises(try scratch.copy(game, as: "longer", appending: [0])))
        // Decided once per file version: a second look reads nothing.
        let before = runners.examined
        #expect(runners.recognises(renamed))
        #expect(!runners.recognises(scratch.root + "/changed"))
        #expect(runners.examined == before)
    }

    @Test(.enabled(if: access("/bin/dash", R_OK) == 0, "no /bin/dash"))
    func theMachinesOwnInterpretersAreFound() throws {
        let scratch = try Scratch()
        let copy = try scratch.copy("/bin/dash", as: "runner")
        #expect(ProgramRunners.machine.recognises(copy))
        #expect(ExecRules.none.mayRunOthers(exe: copy))
        #expect(!ExecRules.none.mayRunOthers(exe: "/bin/true"))
        // Never blocked, whatever a catalog says.
        let rules = ExecRules.resolve([BlockedApp(id: "bad", executables: [copy])], hasher: ContentHasher(), userWritable: [])
        #expect(rules.isEmpty && rules.notes.allSatisfy { $0.contains("never blocked") }, "\(rules.notes)")
    }
}
