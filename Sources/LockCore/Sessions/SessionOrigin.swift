/// What started a session. On the wire and on disk: `manual`, `schedule:NAME`, `pomodoro` or
/// `allowance:NAME`.
public enum SessionOrigin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Started by a user (`lockctl start`).
    case manual
    /// Started by the named schedule at the start of one of its intervals.
    case schedule(String)
    /// Started by the Pomodoro timer for a focus phase.
    case pomodoro
    /// Started by the named allowance when its time was used up; lasts until its period resets.
    case allowance(String)

    /// Parses the wire form.
    public init?(rawValue: String) {
        switch rawValue {
        case "manual": self = .manual
        case "pomodoro": self = .pomodoro
        default:
            if rawValue.hasPrefix("allowance:"), rawValue.count > 10 {
                self = .allowance(String(rawValue.dropFirst(10)))
                return
            }
            guard rawValue.hasPrefix("schedule:"), rawValue.count > 9 else { return nil }
            self = .schedule(String(rawValue.dropFirst(9)))
        }
    }

    /// The wire form.
    public var rawValue: String {
        switch self {
        case .manual: "manual"
        case .pomodoro: "pomodoro"
        case .schedule(let name): "schedule:\(name)"
        case .allowance(let name): "allowance:\(name)"
        }
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let origin = SessionOrigin(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown origin \(text)"))
        }
        self = origin
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// How a session ended, as recorded in the history.
public enum EndReason: String, Sendable, Codable, CaseIterable {
    /// Its time ran out while the daemon was running.
    case expired
    /// A user (or the schedule or Pomodoro timer that owns it) stopped it.
    case stopped
    /// Its time ran out while the daemon was not running; noticed at the next start.
    case daemonRestart = "daemon-restart"
    /// Ended early through emergency access (a challenge answered after its wait).
    case unlocked
}
