import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// `lockctl ui`: the server answers only on loopback, only to its own Host, only with the
/// token's session, and takes changes only from its own origin; what it relays the daemon
/// decides with the user's own credentials.
@Suite("lockctl ui: the web UI's server")
struct UISecurityTests {
    @Test("listens on 127.0.0.1 and ::1 only; a request without the token or its cookie is refused")
    func loopbackAndToken() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let ui = try UIServerProcess(root: root)
        let listening = TCP.listeners(port: ui.port)
        #expect(listening.contains("127.0.0.1"), "\(listening)")
        #expect(listening.allSatisfy { $0 == "127.0.0.1" || $0 == "[::1]" }, "not only loopback: \(listening)")

        let page = try ui.request("GET", "/", headers: [("Host", ui.host)])
        #expect(page.status == 401, "\(page.raw)")
        #expect(!page.body.contains("<html"), "the app was served without a token")
        let api = try ui.request("GET", "/v1/status", headers: [("Host", ui.host)])
        #expect(api.status == 401 && api.body.contains("\"error\""), "\(api.raw)")
        let wrong = try ui.request("GET", "/?token=\(String(repeating: "0", count: ui.token.count))", headers: [("Host", ui.host)])
        #expect(wrong.status == 403, "\(wrong.raw)")
        let forged = try ui.request("GET", "/", headers: [("Host", ui.host), ("Cookie", "simplylock_ui_\(ui.port)=\(ui.token)")])
        #expect(forged.status == 401, "the token itself is not a session: \(forged.raw)")

        // The token works once: it becomes an HttpOnly, SameSite=Strict cookie.
        let login = try ui.request("GET", "/?token=\(ui.token)", headers: [("Host", ui.host)])
        #expect(login.status == 303 && login.header("location") == "/", "\(login.raw)")
        let setCookie = login.header("set-cookie") ?? ""
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), "\(setCookie)")
        let again = try ui.request("GET", "/?token=\(ui.token)", headers: [("Host", ui.host)])
        #expect(again.status == 403, "a spent token opened a session: \(again.raw)")

        let cookie = String(setCookie.split(separator: ";")[0])
        let app = try ui.request("GET", "/", headers: [("Host", ui.host), ("Cookie", cookie)])
        #expect(app.status == 200 && app.body.contains("<nav class=\"tabbar\""), "\(app.raw.prefix(400))")
        #expect(app.header("content-security-policy")?.contains("default-src 'self'") == true)
        #expect(app.header("referrer-policy") == "no-referrer")
        let status = try ui.request("GET", "/v1/status", headers: [("Host", "localhost:\(ui.port)"), ("Cookie", cookie)])
        #expect(status.status == 200 && status.body.contains("\"sessions\""), "\(status.raw)")
        if listening.contains("[::1]") {
            let six = try ui.request("GET", "/v1/status", headers: [("Host", "[::1]:\(ui.port)"), ("Cookie", cookie)], address: "::1")
            #expect(six.status == 200, "\(six.raw)")
        }
        let missing = try ui.request("GET", "/../../etc/passwd", headers: [("Host", ui.host), ("Cookie", cookie)])
        #expect(missing.status == 404 || missing.status == 400, "\(missing.raw)")
        // App icons are looked up by app id through the daemon, never by a path from the request.
        let traversal = try ui.request("GET", "/icons/app/..%2F..%2F..%2Fetc%2Fpasswd", headers: [("Host", ui.host), ("Cookie", cookie)])
        #expect(traversal.status == 404 && !traversal.body.contains("root:"), "\(traversal.raw)")
        #expect(try ui.stop() == 0, "\(ui.stderr)")
        _ = daemon
    }

    @Test("another Host header is refused (DNS rebinding), with the token as with the cookie")
    func otherHost() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let ui = try UIServerProcess(root: root)
        for host in ["evil.example:\(ui.port)", "127.0.0.1", "127.0.0.1:\(ui.port + 1)", "localhost.evil.example:\(ui.port)"] {
            let answer = try ui.request("GET", "/?token=\(ui.token)", headers: [("Host", host)])
            #expect(answer.status == 421, "Host \(host): \(answer.raw)")
        }
        let noHost = try ui.request("GET", "/?token=\(ui.token)", headers: [])
        #expect(noHost.status == 421 || noHost.status == 400, "\(noHost.raw)")
        // Refusals on the Host did not spend the token.
        let cookie = try ui.login()
        let rebound = try ui.request("GET", "/v1/status", headers: [("Host", "evil.example:\(ui.port)"), ("Cookie", cookie)])
        #expect(rebound.status == 421, "\(rebound.raw)")
        _ = daemon
    }

    @Test("a write from another origin, or of no known origin, is refused and changes nothing; the UI's own starts a block")
    func crossOriginWrites() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let ui = try UIServerProcess(root: root)
        let cookie = try ui.login()
        let start = #"{"profile":"news","seconds":600}"#
        let attempts: [[(String, String)]] = [
            [("Origin", "http://evil.example")],
            [("Origin", "null")],
            [("Origin", "http://127.0.0.1:\(ui.port + 1)")],
            [("Sec-Fetch-Site", "cross-site")],
            [("Sec-Fetch-Site", "same-site")],
            [],
        ]
        for extra in attempts {
            let answer = try ui.request("POST", "/v1/sessions", headers: [("Host", ui.host), ("Cookie", cookie)] + extra, body: start)
            #expect(answer.status == 403, "\(extra): \(answer.raw)")
        }
        let idle = try daemon.decode(StatusResponse.self, "status")
        #expect(idle.sessions.isEmpty, "a refused write started a block: \(idle)")
        #expect(!root.hosts().contains("news.ycombinator.com"))

        let own = try ui.request(
            "POST", "/v1/sessions", headers: [("Host", ui.host), ("Cookie", cookie), ("Origin", "http://\(ui.host)")], body: start)
        #expect(own.status == 201, "\(own.raw)")
        let status = try daemon.lockctl("status")
        #expect(status.stdout.contains("news"), "\(status)")
        #expect(root.hosts().contains("BEGIN simplylock"), "\(root.hosts())")
        // The daemon's refusals come through with its message.
        let strict = try ui.request(
            "POST", "/v1/sessions", headers: [("Host", ui.host), ("Cookie", cookie), ("Origin", "http://\(ui.host)")],
            body: #"{"profile":"social","seconds":600,"strict":true}"#)
        #expect(strict.status == 201, "\(strict.raw)")
        let stop = try ui.request(
            "DELETE", "/v1/sessions/social", headers: [("Host", ui.host), ("Cookie", cookie), ("Sec-Fetch-Site", "same-origin")])
        #expect(stop.status == 409 && stop.body.contains("strict"), "\(stop.raw)")
        #expect(try daemon.lockctl("status").stdout.contains("social"))
    }

    @Test("the event stream is relayed as the daemon writes it")
    func eventStream() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let ui = try UIServerProcess(root: root)
        let cookie = try ui.login()
        let result = LockedData()
        let host = ui.host
        let port = ui.port
        let reader = Thread {
            let text = "GET /v1/events HTTP/1.1\r\nHost: \(host)\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n"
            result.set(Data(((try? TCP.exchange(address: "127.0.0.1", port: port, text, timeout: 3)) ?? "").utf8))
        }
        reader.start()
        Thread.sleep(forTimeInterval: 1)
        try daemon.lockctl("start", "news", "5m")
        try waitUntil("the started event to arrive through the UI server", timeout: 10) {
            String(decoding: result.get(), as: UTF8.self).contains("session.started")
        }
        let text = String(decoding: result.get(), as: UTF8.self)
        #expect(text.contains("\"hello\""), "\(text)")
    }

    /// Running the server as nobody needs root (to switch) and setpriv.
    static let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test(
        "a user outside the simplylock group can look through the UI but not change: the daemon's refusal comes through",
        .enabled(if: canSwitchUser, "needs root and /usr/bin/setpriv to run the UI server as uid 65534"))
    func outsiderLooksButCannotChange() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let ui = try UIServerProcess(
            root: root, wrapper: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], environment: ["HOME": "/"])
        let cookie = try ui.login()
        let look = try ui.request("GET", "/v1/status", headers: [("Host", ui.host), ("Cookie", cookie)])
        #expect(look.status == 200, "\(look.raw)")
        let change = try ui.request(
            "POST", "/v1/sessions", headers: [("Host", ui.host), ("Cookie", cookie), ("Origin", "http://\(ui.host)")],
            body: #"{"profile":"news","seconds":600}"#)
        #expect(change.status == 403, "\(change.raw)")
        #expect(change.body.contains("simplylock"), "the daemon's reason names the group: \(change.body)")
        #expect(try daemon.decode(StatusResponse.self, "status").sessions.isEmpty)
    }
}
