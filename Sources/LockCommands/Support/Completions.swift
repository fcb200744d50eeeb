import ArgumentParser
import Foundation
import LockClient
import LockCore
import LockProtocol

/// Shell completions of names only the running daemon knows: profiles, sessions, schedules and
/// services. The shell runs `lockctl ---completion …` with the words typed so far; the daemon is
/// asked at the socket those words name (`--root`, `--socket`), and nothing is offered when it
/// does not answer.
enum Completions {
    static let profiles = CompletionKind.custom { words, _, _ in names(words) { try $0.fetch(Endpoints.profiles).profiles.map(\.name) } }

    /// Active sessions: their profiles and ids.
    static let sessions = CompletionKind.custom { words, _, _ in
        names(words) { client in
            let sessions = try client.fetch(Endpoints.status).sessions
            return Array(Set(sessions.map(\.profile))).sorted() + sessions.map(\.id)
        }
    }

    static let schedules = CompletionKind.custom { words, _, _ in names(words) { try $0.fetch(Endpoints.schedules).schedules.map(\.name) } }

    static let services = CompletionKind.custom { words, _, _ in names(words) { try $0.fetch(Endpoints.services).services.map(\.name) } }

    static let categories = CompletionKind.custom { words, _, _ in
        names(words) { try $0.fetch(Endpoints.services).categories.map(\.name) }
    }

    /// Custom profiles only: the ones that can be changed.
    static let customProfiles = CompletionKind.custom { words, _, _ in
        names(words) { try $0.fetch(Endpoints.profiles).profiles.filter { $0.kind == "custom" }.map(\.name) }
    }

    private static func names(_ words: [String], _ fetch: (LockClient) throws -> [String]) -> [String] {
        (try? fetch(LockClient(socketPath: socket(in: words)))) ?? []
    }

    /// The socket the typed words point at, as `GlobalOptions` would choose it.
    static func socket(in words: [String]) -> String {
        var root = "/"
        var socket: String?
        for (index, word) in words.enumerated() {
            let next = index + 1 < words.count ? unquote(words[index + 1]) : nil
            if word == "--root", let next { root = next }
            if word.hasPrefix("--root=") { root = unquote(String(word.dropFirst(7))) }
            if word == "--socket", let next { socket = next }
            if word.hasPrefix("--socket=") { socket = unquote(String(word.dropFirst(9))) }
        }
        if let socket { return socket }
        if let fromEnvironment = ProcessInfo.processInfo.environment[API.socketEnvironmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return Paths(root: root).socket
    }

    /// Shells pass words as typed, quotes included.
    private static func unquote(_ word: String) -> String {
        var text = word
        if text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first {
            text = String(text.dropFirst().dropLast())
        }
        return text.replacingOccurrences(of: "\\ ", with: " ")
    }
}
