import LockProtocol

/// A request as the router sees it: the head already admitted, the body read.
struct APIRequest: Sendable {
    /// The method, or nil for one the API does not know.
    var method: HTTPVerb?
    /// The method as sent, for messages.
    var methodName: String
    /// The path, without the query.
    var path: String
    /// The query string after `?`, if any.
    var query: String?
    /// The body.
    var body: [UInt8]
    /// Who sent it.
    var peer: PeerCredentials
    /// The body as it arrives, for endpoints that stream it (`body` is then empty).
    var bodyStream: RequestBodyStream?

    /// Splits a request target into path and query.
    init(methodName: String, uri: String, body: [UInt8] = [], peer: PeerCredentials, bodyStream: RequestBodyStream? = nil) {
        self.bodyStream = bodyStream
        self.methodName = methodName
        method = HTTPVerb(rawValue: methodName)
        if let mark = uri.firstIndex(of: "?") {
            path = String(uri[..<mark])
            query = String(uri[uri.index(after: mark)...])
        } else {
            path = uri
            query = nil
        }
        self.body = body
        self.peer = peer
    }
}

/// What the router answers.
enum APIResponse: Sendable {
    /// A JSON body with a status, and extra headers (`Allow` on 405).
    case json(status: Int, body: [UInt8], headers: [(String, String)] = [])
    /// Events until the stream ends (client gone, or shutdown).
    case events(AsyncStream<DaemonEvent>)

    /// The status code.
    var status: Int {
        switch self {
        case .json(let status, _, _): status
        case .events: 200
        }
    }
}
