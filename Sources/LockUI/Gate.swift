import Synchronization

/// Who may use the UI server, decided from a request's head alone: the rules of a local web
/// app that holds the user's authority over the daemon (as Jupyter's and `tailscale web`'s).
///
/// - The `Host` header must name the server's own loopback address and port: a page of another
///   site that had its name re-pointed at 127.0.0.1 (DNS rebinding) sends its own name.
/// - A one-time token of a printed URL (the first, or one issued to a `lockctl ui` that found
///   this server running) is exchanged once for a session cookie (HttpOnly, so
///   scripts cannot read it; SameSite=Strict, so no other site's page sends it); every other
///   request needs that cookie.
/// - A request that may change something (any method but GET and HEAD) must come from the UI's
///   own origin (`Origin`, else `Sec-Fetch-Site: same-origin`): a form on another site is refused
///   even in a browser that sends the cookie.
public final class Gate: Sendable {
    /// What to do with a request.
    public enum Decision: Equatable, Sendable {
        /// Serve it (a static file or the daemon's answer).
        case admit
        /// The token was right: set this cookie value and send the browser to `/`.
        case startSession(cookieValue: String)
        /// Refuse with this status and reason.
        case refuse(status: Int, reason: String)
    }

    /// The cookie's name; with the port in it, two UI servers on one machine keep their own.
    public let cookieName: String
    private let allowedHosts: Set<String>
    private let allowedOrigins: Set<String>
    private let state: Mutex<State>

    private struct State {
        /// Unspent tokens, oldest first: the first printed, then one per reuse of the server.
        var tokens: [String]
        var sessions: Set<String> = []
    }

    /// Unspent tokens kept at most: an older one is forgotten when another is issued.
    static let maxTokens = 8

    /// `token` is spent by its first use; `port` is the port the server listens on.
    public init(port: Int, token: String) {
        let hosts = ["127.0.0.1:\(port)", "[::1]:\(port)", "localhost:\(port)"]
        allowedHosts = Set(hosts)
        allowedOrigins = Set(hosts.map { "http://" + $0 })
        cookieName = "simplylock_ui_\(port)"
        state = Mutex(State(tokens: [token]))
    }

    /// A new one-time token, for another `lockctl ui` that reuses this server.
    public func issueToken() -> String {
        let token = Self.randomHex(bytes: 32)
        state.withLock { state in
            state.tokens.append(token)
            if state.tokens.count > Self.maxTokens { state.tokens.removeFirst() }
        }
        return token
    }

    /// Decides on a request. `headers` are looked up by lowercase name.
    public func decide(method: String, path: String, query: String?, header: (String) -> [String]) -> Decision {
        let hosts = header("host")
        guard hosts.count == 1, allowedHosts.contains(hosts[0].lowercased()) else {
            return .refuse(status: 421, reason: "this server answers only to its own loopback address (Host: \(hosts.first ?? "none"))")
        }
        if method != "GET" && method != "HEAD" {
            if let problem = crossOriginProblem(header: header) { return .refuse(status: 403, reason: problem) }
        } else if header("sec-fetch-site").contains("cross-site") {
            return .refuse(status: 403, reason: "requests from other sites are refused")
        }
        if hasSession(header("cookie")) { return .admit }
        if method == "GET", path == "/", let offered = Self.token(inQuery: query) {
            return state.withLock { state in
                // Every token is compared, so that timing tells nothing of which one matched.
                let matches = state.tokens.indices.filter { Self.equalInConstantTime(offered, state.tokens[$0]) }
                guard let match = matches.first else {
                    return .refuse(status: 403, reason: "this token is not valid (it works once): run `lockctl ui` again")
                }
                state.tokens.remove(at: match)
                let value = Self.randomHex(bytes: 32)
                state.sessions.insert(value)
                return .startSession(cookieValue: value)
            }
        }
        return .refuse(status: 401, reason: "open the address `lockctl ui` printed (with its token)")
    }

    /// The `Set-Cookie` value for a new session.
    public func setCookie(_ value: String) -> String {
        "\(cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict"
    }

    private func crossOriginProblem(header: (String) -> [String]) -> String? {
        let origins = header("origin")
        if !origins.isEmpty {
            guard origins.count == 1, allowedOrigins.contains(origins[0].lowercased()) else {
                return "changes from another origin are refused (Origin: \(origins.joined(separator: ", ")))"
            }
            return nil
        }
        if header("sec-fetch-site") == ["same-origin"] { return nil }
        return "changes need the UI's own origin (no Origin or Sec-Fetch-Site header)"
    }

    private func hasSession(_ cookieHeaders: [String]) -> Bool {
        let offered = cookieHeaders.flatMap { $0.split(separator: ";") }.compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: " ") == cookieName else { return nil }
            return String(parts[1].trimmingCharacters(in: " "))
        }
        guard !offered.isEmpty else { return false }
        return state.withLock { state in
            offered.contains { value in state.sessions.contains { Self.equalInConstantTime($0, value) } }
        }
    }

    static func token(inQuery query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == "token" { return String(parts[1]) }
        }
        return nil
    }

    /// Compares every byte whatever the first difference, so that timing tells nothing.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// `bytes` random bytes as hex, from the system's cryptographic generator (getrandom).
    public static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var result = self
        while result.first == set { result = result.dropFirst() }
        while result.last == set { result = result.dropLast() }
        return result
    }
}
