/// Machine-readable error codes of the control API, each with its HTTP status.
public enum APIErrorCode: String, Sendable, Codable, CaseIterable {
    /// The request could not be understood (malformed HTTP or JSON). 400.
    case badRequest = "bad_request"
    /// A value in the request is invalid; the message names the field. 400.
    case invalidArgument = "invalid_argument"
    /// The caller may read but not change things. 403.
    case forbidden
    /// No such profile, session or route. 404.
    case notFound = "not_found"
    /// The route exists but not with this method. 405.
    case methodNotAllowed = "method_not_allowed"
    /// Refused by policy, such as stopping a strict session. 409.
    case refused
    /// Conflicts with the current state, such as starting a profile that is already active. 409.
    case conflict
    /// The request body is too large. 413.
    case tooLarge = "too_large"
    /// Too many connections or requests from this caller, or the daemon is busy. 503.
    case unavailable
    /// The daemon failed to do what it should have been able to do. 500.
    case internalError = "internal"

    /// The HTTP status this code is sent with.
    public var httpStatus: Int {
        switch self {
        case .badRequest, .invalidArgument: 400
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .refused, .conflict: 409
        case .tooLarge: 413
        case .unavailable: 503
        case .internalError: 500
        }
    }
}

/// An error as the API reports it: `{"error": {"code": "...", "message": "...", "hint": "..."}}`.
public struct APIError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The error's code.
    public var code: APIErrorCode
    /// A sentence for people saying what went wrong; a refused value is named by its request
    /// field first (`seconds: …`), which clients may replace with their own option's name.
    public var message: String
    /// What to do about it, when there is something to do (`see \`lockctl status\``); shown
    /// by lockctl on a line of its own.
    public var hint: String?
    /// The methods the path allows, sent as the `Allow` header of a 405 (not in the body).
    public var allow: String?

    /// Creates an error.
    public init(_ code: APIErrorCode, _ message: String, hint: String? = nil, allow: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.allow = allow
    }

    private enum CodingKeys: String, CodingKey { case code, message, hint }

    public var description: String { message }
}

/// The JSON body that carries an `APIError`.
public struct APIErrorBody: Sendable, Codable {
    /// The error.
    public var error: APIError
    /// Wraps an error.
    public init(error: APIError) { self.error = error }
}
