import Foundation
import Glibc
import TestSupport
import Testing

@testable import LockEnforcement

/// Similarity matching for strict blocks, on the static fake game (the shape of a real game
/// binary: code, data and a statically linked C library) and on programs built here.
@Suite(.enabled(if: FakeGame.binary != nil, "gcc -static failed (no static C library?)"))
struct ContentSignatureTests {
    static func signature(_ bytes: [UInt8]) throws -> ContentSignature {
        let scratch = try ExecRulesTests.Scratch()
        let path = try scratch.write("file", bytes)
        return try #require(ContentHasher().signature(path: path)).0
    }

    static func game() throws -> [UInt8] {
        let path = try #require(FakeGame.binary)
        return [UInt8](try #require(FileManager.default.contents(atPath: path)))
    }

    @Test func recognisesCopiesWithBytesAppendedChangedOrInserted() throws {
        let game = try Self.game()
        let blocked = try Self.signature(game)
        #expect(blocked.chunks.count >= ContentSignature.minimumChunks, "\(blocked.chunks.count) chunks")
        var changed = game
        for offset in stride(from: game.count / 5, to: game.count, by: game.count / 5) { changed[offset] ^= 0xFF }
        let middle = game.count / 2
        let edits: [(String, [UInt8])] = [
            ("one byte appended", game + [0x0A]),
            ("a megabyte of junk appended", game + [UInt8](repeating: 0x5A, count: 1 << 20)),
            ("four bytes changed", changed),
            ("bytes inserted", Array(game[..<middle]) + Array("inserted".utf8) + Array(game[middle...])),
            ("bytes removed", Array(game[..<middle]) + Array(game[(middle + 100)...])),
        ]
        for (name, bytes) in edits {
            let copy = try Self.signature(bytes)
            #expect(copy.digest != blocked.digest, "\(name)")
            #expect(blocked.matches(copy), "\(name): \(blocked.containedShare(in: copy))")
        }
    }

    @Test func leavesUnrelatedProgramsOfSimilarSizeAlone() throws {
        let blocked = try Self.signature(try Self.game())
        // Another static C program: the same C library inside, but laid out elsewhere.
        let scratch = try ExecRulesTests.Scratch()
        try "#include <stdio.h>\nint main(void) { puts(\"another program\"); return 0; }\n".write(
            toFile: scratch.root + "/other.c", atomically: true, encoding: .utf8)
        let built = try ProcessRunner.run("/usr/bin/gcc", ["-static", "-O2", "-o", scratch.root + "/other", scratch.root + "/other.c"])
        try #require(built.status == 0, "\(built)")
        let other = try #require(ContentHasher().signature(path: scratch.root + "/other")).0
        #expect(abs(other.size - blocked.size) < blocked.size / 2, "sizes \(other.size) and \(blocked.size)")
        #expect(!blocked.matches(other), "\(blocked.containedShare(in: other))")
        // Random bytes of the same size share nothing.
        var generator = SplitMix64(state: 23)
        let noise = try Self.signature((0..<Int(blocked.size)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        #expect(blocked.containedShare(in: noise) < 0.01)
    }

    @Test func matchesSmallProgramsExactlyOnly() throws {
        let script = Array("#!/bin/sh\necho a small game\n".utf8)
        let blocked = try Self.signature(script)
        #expect(blocked.chunks.count < ContentSignature.minimumChunks)
        #expect(blocked.matches(try Self.signature(script)))
        #expect(!blocked.matches(try Self.signature(script + [0x0A])))
    }
}
