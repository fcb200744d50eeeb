import Foundation
import LockProtocol

/// An event line read leniently: every event has a type, a time and a message, and the rest is
/// taken when it can be read, so a type this lockctl does not know yet (a newer daemon's) is
/// still shown instead of ending the stream.
struct LooseEvent: Decodable {
    var type: String
    var at: Date
    var message: String
    var profile: String?
    var session: SessionInfo?
    var reason: String?
    var details: [String: EnforcerReport.Value]

    private enum CodingKeys: String, CodingKey { case type, at, message, profile, session, reason, details }

    init(
        type: String, at: Date, message: String, profile: String? = nil, session: SessionInfo? = nil, reason: String? = nil,
        details: [String: EnforcerReport.Value] = [:]
    ) {
        self.type = type
        self.at = at
        self.message = message
        self.profile = profile
        self.session = session
        self.reason = reason
        self.details = details
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        at = try container.decode(Date.self, forKey: .at)
        message = (try? container.decode(String.self, forKey: .message)) ?? ""
        profile = try? container.decodeIfPresent(String.self, forKey: .profile)
        session = try? container.decodeIfPresent(SessionInfo.self, forKey: .session)
        reason = try? container.decodeIfPresent(String.self, forKey: .reason)
        details = (try? container.decodeIfPresent([String: EnforcerReport.Value].self, forKey: .details)) ?? [:]
    }

    /// Decodes one line of the stream; nil for a line that is not an event.
    static func decode(_ line: [UInt8]) -> LooseEvent? {
        try? API.makeDecoder().decode(LooseEvent.self, from: Data(line))
    }

    /// A detail as text.
    func detail(_ key: String) -> String? { details[key]?.description }
}
