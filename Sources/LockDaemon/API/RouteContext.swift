import LockCore
import LockPlatform
import LockProtocol

/// What a route handler gets: the decoded body, the path parameters, the validated query, who
/// asked, and the time, for mapping domain errors into messages.
struct RouteContext<Body: Sendable>: Sendable {
    /// The decoded request body.
    let body: Body
    /// Path parameters by name (`ref` in `/v1/sessions/{ref}`).
    let parameters: [String: String]
    /// The validated query.
    let query: QueryValues
    /// Who asked.
    let peer: PeerCredentials
    /// Turns domain errors into API errors.
    let errors: ErrorMapping

    /// A path parameter (the table guarantees those of the template are present).
    func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// Runs a domain operation, turning its typed error into an API error.
    func call<T, Failure: APIMappable>(_ operation: () async throws(Failure) -> T) async throws(APIError) -> T {
        do { return try await operation() } catch { throw error.apiError(errors) }
    }
}

/// A domain error the edge knows how to report.
protocol APIMappable: Error {
    /// The API error for this, with messages written by `mapping`.
    func apiError(_ mapping: ErrorMapping) -> APIError
}

extension SessionError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension ProfileError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension SchedulingError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension PomodoroError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension ListError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension AppLookupError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension InsightsError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension EmergencyError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension ReportError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { mapping.map(self) } }
extension APIError: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { self } }
extension Never: APIMappable { func apiError(_ mapping: ErrorMapping) -> APIError { switch self {} } }
