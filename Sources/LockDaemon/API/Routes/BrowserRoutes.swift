import Foundation
import LockCore
import LockProtocol

/// The browser companion: its hello, the list of companions, its site meter, and `check ?url=`.
struct BrowserRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let browser = core.browser
        router.add(Endpoints.browserHello) { context throws(APIError) in
            let hello = context.body
            guard Self.isLabel(hello.browser, maxBytes: 32), Self.isLabel(hello.extensionVersion, maxBytes: 32) else {
                throw APIError(.invalidArgument, "browser and extensionVersion: 1-32 letters, digits, '.', '-' or '_'")
            }
            await browser.hello(
                uid: context.peer.uid, browser: hello.browser, extensionVersion: hello.extensionVersion, incognito: hello.incognito)
            return BrowserCompanions(await browser.companions(activeSeconds: BrowserCompanions.activeSeconds))
        }
        router.add(Endpoints.browserCompanions) { _ in
            BrowserCompanions(await browser.companions(activeSeconds: BrowserCompanions.activeSeconds))
        }
        router.add(Endpoints.browserAttempt) { context throws(APIError) in
            try await Self.attempt(url: context.body.url, uid: context.peer.uid, core: core)
        }
        router.add(Endpoints.reportUsage) { context throws(APIError) in
            let samples = context.body.samples.map { (host: $0.host, end: $0.end, seconds: $0.seconds) }
            do throws(BrowserCompanionService.ReportError) {
                return UsageSamplesResponse(counted: try await browser.report(uid: context.peer.uid, samples: samples))
            } catch {
                throw APIError(.invalidArgument, error.description)
            }
        }
    }

    /// Counts the shield as a blocked attempt when the URL is blocked now, attributed to the
    /// session whose rule blocks it (the first answer of `check`, names before paths).
    static func attempt(url: String, uid: UInt32, core: DaemonCore) async throws(APIError) -> BrowserAttemptResponse {
        guard url.utf8.count <= 2048 else { throw APIError(.invalidArgument, "url: longer than 2048 bytes") }
        let checked = try await check(url: url, core: core)
        guard let match = checked.matches.first else { return BrowserAttemptResponse(recorded: false) }
        let host: DomainName
        do { host = try core.names.lookupName(try split(url: url).host) } catch { throw APIError(.invalidArgument, "url: \(error)") }
        let recorded = await core.attempts.recordBrowserShield(
            BrowserShieldAttempt(name: host.value, rule: match.rule, session: match.session, uid: uid))
        return BrowserAttemptResponse(recorded: recorded, rule: match.rule)
    }

    private static func isLabel(_ text: String, maxBytes: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxBytes
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-_".unicodeScalars.contains($0))
            }
    }

    /// `check ?url=`: the host's answer as `?name=` gives it, with the sessions' path rules that
    /// cover the URL and the browser companion's own answer (the only enforcer that sees paths).
    static func check(url input: String, core: DaemonCore) async throws(APIError) -> CheckResponse {
        let (hostText, path, query) = try split(url: input)
        let name: DomainName
        do { name = try core.names.lookupName(hostText) } catch { throw APIError(.invalidArgument, "url: \(error)") }
        var response = CheckResponse(await core.reporter.check(name))
        let sessions = await core.sessions.active.filter { $0.target.names.contains(BlockTarget.localName) }
        var pageMatches: [CheckResponse.Match] = []
        for session in sessions {
            let rules = session.rules
            let rule =
                PathRule.blockingRule(host: name.value, path: path, block: rules.paths, allow: rules.allowPaths)?.description
                ?? KeywordRule.blockingKeyword(
                    host: name.value, path: path, query: query, keywords: rules.keywords, allowPaths: rules.allowPaths)?.ruleName
            guard let rule else { continue }
            pageMatches.append(
                CheckResponse.Match(profile: session.profile, session: session.id, origin: session.origin.rawValue, rule: rule))
        }
        let active = await core.browser.companions(activeSeconds: BrowserCompanions.activeSeconds).filter(\.active)
        let connected =
            active.isEmpty
            ? "no browser companion is connected (lockctl browser install; then open the browser)"
            : "connected in " + Set(active.map(\.hello.browser)).sorted().joined(separator: ", ")
        let answer: CheckResponse.EnforcerAnswer
        if let rule = pageMatches.first {
            let what =
                rule.rule.hasPrefix("keyword ")
                ? "\(rule.rule): only the browser companion sees addresses, and shows the shield"
                : "path rule \(rule.rule): only the browser companion sees paths, and shows the shield"
            answer = CheckResponse.EnforcerAnswer(name: "browser", blocks: !active.isEmpty, detail: "\(what); \(connected)")
        } else if !response.matches.isEmpty {
            answer = CheckResponse.EnforcerAnswer(
                name: "browser", blocks: !active.isEmpty, detail: "shows the shield for the blocked name; \(connected)")
        } else {
            answer = CheckResponse.EnforcerAnswer(
                name: "browser", blocks: false, detail: "no path, keyword or name rule covers it; \(connected)")
        }
        let shown = name.value + path + (query.isEmpty ? "" : "?" + query)
        response = CheckResponse(name: shown, matches: response.matches + pageMatches, enforcers: response.enforcers + [answer])
        return response
    }

    /// The host, path and query (without `?`) of `input` (`https://www.youtube.com/shorts/x?y`):
    /// a scheme is optional, only http and https are URLs a browser blocks; user, port and
    /// fragment are dropped.
    static func split(url input: String) throws(APIError) -> (host: String, path: String, query: String) {
        var rest = Substring(input.trimmingCharacters(in: .whitespaces))
        if let scheme = rest.range(of: "://") {
            let name = rest[..<scheme.lowerBound].lowercased()
            guard name == "http" || name == "https" else {
                throw APIError(.invalidArgument, "url: \"\(name)\" is not http or https; only web pages have paths the companion blocks")
            }
            rest = rest[scheme.upperBound...]
        }
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let colon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") { authority = authority[..<colon] }
        var path = rest[authorityEnd...]
        var query = Substring("")
        if let mark = path.firstIndex(of: "?") {
            query = path[path.index(after: mark)...]
            path = path[..<mark]
        }
        guard !authority.isEmpty else { throw APIError(.invalidArgument, "url: \"\(input)\" has no host") }
        return (String(authority), path.isEmpty ? "/" : String(path), String(query))
    }
}

extension BrowserCompanions {
    init(_ companions: [(hello: BrowserCompanionService.Hello, active: Bool)]) {
        self.init(
            companions: companions.map {
                Entry(
                    uid: Int($0.hello.uid), browser: $0.hello.browser, extensionVersion: $0.hello.extensionVersion,
                    lastSeen: $0.hello.lastSeen, active: $0.active, incognito: $0.hello.incognito)
            })
    }
}
