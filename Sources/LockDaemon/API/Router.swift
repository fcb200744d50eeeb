import Foundation
import LockCore
import LockProtocol

/// The control API's one route table: each endpoint of `Endpoints` (shared with the client)
/// with its handler. Knows nothing about sockets, so the whole API can be exercised in-process.
///
/// A request is admitted from its head alone (route, method, who may do it, how large a body
/// may be) before any body is read; then its query is validated against the endpoint's
/// declaration, its body decoded, and the handler called.
struct Router: Sendable {
    typealias Handler = @Sendable (APIRequest, [String: String], QueryValues, ErrorMapping) async throws(APIError) -> APIResponse

    fileprivate struct Entry: Sendable {
        let endpoint: EndpointDescriptor
        let handler: Handler
    }

    private var entries: [Entry] = []
    let authorizer: Authorizer
    /// The time and zone used in messages.
    let context: @Sendable () -> ErrorMapping

    init(authorizer: Authorizer, context: @escaping @Sendable () -> ErrorMapping) {
        self.authorizer = authorizer
        self.context = context
    }

    /// The endpoints registered, in order.
    var endpoints: [EndpointDescriptor] { entries.map(\.endpoint) }

    /// Registers the handler of an endpoint with a JSON answer.
    mutating func add<Body: Decodable & Sendable, Answer: Encodable & Sendable>(
        _ endpoint: Endpoint<Body, Answer>, _ handler: @escaping @Sendable (RouteContext<Body>) async throws(APIError) -> Answer
    ) {
        let descriptor = endpoint.descriptor
        precondition(
            !entries.contains { $0.endpoint.method == descriptor.method && $0.endpoint.template == descriptor.template },
            "\(descriptor.method) \(descriptor.template) registered twice")
        entries.append(
            Entry(endpoint: descriptor) { request, parameters, query, errors throws(APIError) in
                let body: Body = try Router.decode(Body.self, request.body, hasBody: descriptor.hasBody)
                let answer = try await handler(
                    RouteContext(
                        body: body, parameters: parameters, query: query, peer: request.peer,
                        errors: errors))
                return try Router.json(answer, status: descriptor.successStatus)
            })
    }

    /// Registers the handler of an endpoint whose body is read as it arrives.
    mutating func addStreaming<Answer: Encodable & Sendable>(
        _ endpoint: Endpoint<TextStream, Answer>,
        _ handler: @escaping @Sendable (RouteContext<RequestBodyStream>) async throws(APIError) -> Answer
    ) {
        let descriptor = endpoint.descriptor
        entries.append(
            Entry(endpoint: descriptor) { request, parameters, query, errors throws(APIError) in
                let body = request.bodyStream ?? .buffered(request.body)
                let answer = try await handler(
                    RouteContext(
                        body: body, parameters: parameters, query: query, peer: request.peer,
                        errors: errors))
                return try Router.json(answer, status: descriptor.successStatus)
            })
    }

    /// Registers the handler of the event stream.
    mutating func addStream(
        _ endpoint: Endpoint<NoBody, EventStream>,
        _ handler: @escaping @Sendable () -> AsyncStream<DaemonEvent>
    ) {
        entries.append(Entry(endpoint: endpoint.descriptor) { _, _, _, _ in .events(handler()) })
    }

    /// A request's endpoint, matched and authorised from its head: the one decision the
    /// server and the handler share, so a request is never matched or authorised twice.
    struct Route: Sendable {
        fileprivate let entry: Entry
        /// The path's parameters (`NAME` of `/v1/profiles/NAME`).
        let parameters: [String: String]
        /// The largest body this caller may send to it.
        let maxBody: Int
        /// Whether its handler reads the body as it arrives (`RequestBodyStream`) rather than
        /// after it was read whole.
        var streamsBody: Bool { entry.endpoint.streamsBody }
    }

    /// What the server may do with a request, decided from its head.
    enum Admission: Sendable {
        /// Read its body (at most `route.maxBody` bytes; as it arrives when `route.streamsBody`),
        /// then call `handle(_:on:)`.
        case accept(Route)
        /// Answer this at once without reading the body.
        case reject(APIResponse)
    }

    /// Decides from the head alone: an unknown route or method, or a change by someone who may
    /// not make changes, is answered before the body is read; readers may send only small bodies.
    func admit(methodName: String, uri: String, peer: PeerCredentials) -> Admission {
        admit(APIRequest(methodName: methodName, uri: uri, peer: peer))
    }

    /// `admit` for a request whose head is already parsed (its body is not looked at).
    func admit(_ request: APIRequest) -> Admission {
        let peer = request.peer
        do {
            let (entry, parameters) = try match(request)
            // Only a caller who may change things gets past `match` to a streamed endpoint (they
            // all change something), so the large limit is never offered to anyone else.
            let maxBody =
                entry.endpoint.streamsBody
                ? API.maxListBodyBytes : authorizer.mayChange(peer) ? API.maxBodyBytes : API.maxReaderBodyBytes
            return .accept(Route(entry: entry, parameters: parameters, maxBody: maxBody))
        } catch {
            return .reject(Router.error(error))
        }
    }

    /// Answers a request admitted on `route`; never throws.
    func handle(_ request: APIRequest, on route: Route) async -> APIResponse {
        do {
            let query = try Router.validateQuery(request.query, route.entry.endpoint.query)
            return try await route.entry.handler(request, route.parameters, query, context())
        } catch {
            return Router.error(error)
        }
    }

    /// Admits and answers a request in one step (in-process callers, whose bodies are already
    /// read); never throws.
    func handle(_ request: APIRequest) async -> APIResponse {
        switch admit(request) {
        case .reject(let response): response
        case .accept(let route): await handle(request, on: route)
        }
    }

    private func match(_ request: APIRequest) throws(APIError) -> (Entry, [String: String]) {
        var segments: [String] = []
        for part in request.path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = PathTemplate.unescape(part) else {
                throw APIError(.badRequest, "the path \(request.path) has an invalid %-escape")
            }
            segments.append(decoded)
        }
        guard segments.first == "v1" else { throw APIError(.notFound, "no such endpoint \(request.path) (the API lives under /v1/)") }
        var candidates = entries.compactMap { entry in entry.endpoint.template.match(segments).map { (entry, $0) } }
        guard !candidates.isEmpty else { throw APIError(.notFound, "no such endpoint \(request.path)") }
        // Literal segments beat parameters: /v1/pomodoro/history is that path, not the action
        // "history", for every method.
        let mostLiteral = candidates.map { literalCount($0.0) }.max() ?? 0
        candidates.removeAll { literalCount($0.0) < mostLiteral }
        // HEAD is answered wherever GET is, without the body.
        let wanted = request.method == .HEAD ? HTTPVerb.GET : request.method
        let matching = candidates.filter { $0.0.endpoint.method == wanted }
        guard let (entry, parameters) = matching.first else {
            var allowed = Set(candidates.map(\.0.endpoint.method.rawValue))
            if allowed.contains("GET") { allowed.insert("HEAD") }
            let allow = allowed.sorted().joined(separator: ", ")
            throw APIError(.methodNotAllowed, "\(request.methodName) is not allowed on \(request.path) (allowed: \(allow))", allow: allow)
        }
        if !entry.endpoint.method.isRead, !entry.endpoint.anyone, !authorizer.mayChange(request.peer) {
            throw APIError(
                .forbidden,
                "permission denied: changes need root or membership of the '\(authorizer.groupName)' group (you are uid \(request.peer.uid))"
            )
        }
        return (entry, parameters)
    }

    private func literalCount(_ entry: Entry) -> Int {
        entry.endpoint.template.segments.filter { if case .literal = $0 { true } else { false } }.count
    }

    /// Checks a query against the endpoint's declared parameters: each known, given once, with
    /// a valid value; required ones present.
    static func validateQuery(_ raw: String?, _ declared: [QueryParameter]) throws(APIError) -> QueryValues {
        var values: [String: String] = [:]
        for pair in (raw ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PathTemplate.unescape(parts[0], plusIsSpace: true),
                let value = PathTemplate.unescape(parts.count > 1 ? parts[1] : "", plusIsSpace: true)
            else {
                throw APIError(.badRequest, "the query has an invalid %-escape")
            }
            guard !name.isEmpty else { throw APIError(.badRequest, "the query has a parameter without a name") }
            guard let parameter = declared.first(where: { $0.name == name }) else {
                let known = declared.map(\.name)
                throw APIError(
                    .invalidArgument,
                    "\(name): unknown query parameter" + (known.isEmpty ? "" : " (known: \(known.joined(separator: ", ")))"))
            }
            guard values[name] == nil else { throw APIError(.invalidArgument, "\(name): given more than once") }
            switch parameter.kind {
            case .integer(let range):
                guard let number = Int(value), range.contains(number) else {
                    throw APIError(
                        .invalidArgument, "\(name): \"\(value)\" is not a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
            case .text(let maxBytes):
                guard value.utf8.count <= maxBytes else { throw APIError(.invalidArgument, "\(name): longer than \(maxBytes) bytes") }
            case .timestamp:
                guard Timestamp.parse(value) != nil else {
                    throw APIError(.invalidArgument, "\(name): \"\(value)\" is not an RFC 3339 time (e.g. 2027-03-27T12:00:00Z)")
                }
            }
            values[name] = value
        }
        for parameter in declared where parameter.required && values[parameter.name] == nil {
            throw APIError(.invalidArgument, "\(parameter.name): the query parameter ?\(parameter.name)= is required")
        }
        return QueryValues(validated: values)
    }

    private static let encoder = API.makeEncoder()

    static func json(_ value: some Encodable, status: Int) throws(APIError) -> APIResponse {
        do { return .json(status: status, body: Array(try encoder.encode(value)) + [10]) } catch {
            throw APIError(.internalError, "cannot encode the answer: \(error)")
        }
    }

    static func error(_ error: APIError) -> APIResponse {
        let body = (try? encoder.encode(APIErrorBody(error: error))).map(Array.init) ?? Array("{}".utf8)
        return .json(status: error.code.httpStatus, body: body + [10], headers: error.allow.map { [("Allow", $0)] } ?? [])
    }

    static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8], hasBody: Bool) throws(APIError) -> T {
        if !hasBody, let empty = NoBody() as? T {
            // A body where none is read would be ignored, so it is refused like an unknown field.
            let text = String(decoding: body, as: UTF8.self).filter { !$0.isWhitespace }
            guard text.isEmpty || text == "{}" else { throw APIError(.badRequest, "invalid request body: this endpoint takes no body") }
            return empty
        }
        do {
            return try API.makeDecoder().decode(StrictBody<T>.self, from: Data(body)).value
        } catch let error as StrictBody<T>.UnknownField {
            throw APIError(
                .badRequest, "invalid request body: unknown field \"\(error.name)\" (known: \(error.known.joined(separator: ", ")))")
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError(.badRequest, "invalid request body: missing field \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context) {
            throw APIError(.badRequest, "invalid request body: wrong type at \(path(context))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw APIError(.badRequest, "invalid request body: null at \(path(context))")
        } catch let DecodingError.dataCorrupted(context) {
            // Foundation says "not valid JSON" for valid JSON whose number does not fit its
            // field (1e24 or 1.5 for a count), without saying which: find it.
            if let field = misfit(T.self, body) {
                throw APIError(.badRequest, "invalid request body: \(field): out of range (or not a whole number where one is needed)")
            }
            throw APIError(.badRequest, "invalid request body: \(context.debugDescription)")
        } catch {
            throw APIError(.badRequest, "invalid request body: \(error)")
        }
    }

    /// The top-level number of a valid JSON body without which it decodes differently, or nil.
    private static func misfit<T: Decodable>(_ type: T.Type, _ body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        for key in object.keys.sorted().prefix(64) where object[key] is NSNumber && !(object[key] is Bool) {
            var without = object
            without[key] = nil
            guard let data = try? JSONSerialization.data(withJSONObject: without) else { continue }
            do { _ = try API.makeDecoder().decode(StrictBody<T>.self, from: data) } catch DecodingError.dataCorrupted { continue } catch {}
            return key
        }
        return nil
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }
}
