/// One operation of the control API: method, path template, accepted query parameters, and
/// the types of its request body and answer. The daemon's route table and `LockClient` both
/// use these values, so a path or a method cannot differ between the two sides.
public struct Endpoint<Body: Sendable, Answer: Sendable>: Sendable {
    /// The method.
    public let method: HTTPVerb
    /// The path, e.g. `/v1/sessions/{ref}/extend`.
    public let template: PathTemplate
    /// Query parameters it accepts.
    public let query: [QueryParameter]
    /// Status of a successful answer (200, or 201 for creations).
    public let successStatus: Int
    /// True for the few changes anyone may send (a report that only adds, a hello); every other
    /// change needs root or the admin group.
    public let anyone: Bool

    /// Declares an endpoint.
    public init(_ method: HTTPVerb, _ template: String, query: [QueryParameter] = [], successStatus: Int = 200, anyone: Bool = false) {
        self.method = method
        self.template = PathTemplate(template)
        self.query = query
        self.successStatus = successStatus
        self.anyone = anyone
    }

    /// The untyped description the route table and the documentation check use.
    public var descriptor: EndpointDescriptor {
        EndpointDescriptor(
            method: method, template: template, query: query, successStatus: successStatus,
            hasBody: Body.self != NoBody.self, streamsBody: Body.self == TextStream.self, anyone: anyone)
    }
}

/// An endpoint without its body and answer types.
public struct EndpointDescriptor: Sendable, Hashable {
    /// The method.
    public let method: HTTPVerb
    /// The path template.
    public let template: PathTemplate
    /// Accepted query parameters.
    public let query: [QueryParameter]
    /// Status of a successful answer.
    public let successStatus: Int
    /// Whether the request carries a body.
    public let hasBody: Bool
    /// Whether the body is text read as it arrives (`TextStream`) rather than JSON read whole.
    public let streamsBody: Bool
    /// Whether anyone may send it, though it is not a read.
    public var anyone: Bool = false
}

/// The body of requests that carry none.
public struct NoBody: Sendable, Codable, Equatable {
    /// The empty body.
    public init() {}
}

/// The answer of deletions: `{"deleted": NAME}`.
public struct Deleted: Sendable, Codable, Equatable {
    /// What was deleted.
    public var deleted: String
    /// Creates the answer.
    public init(deleted: String) { self.deleted = deleted }
}

/// A stream of events, one JSON object per line (`GET /v1/events`).
public struct EventStream: Sendable {}

/// A request body of plain text read piece by piece as it arrives, never held whole
/// (`PUT /v1/lists/{name}`): it may be far larger than `API.maxBodyBytes`.
public struct TextStream: Sendable {}
