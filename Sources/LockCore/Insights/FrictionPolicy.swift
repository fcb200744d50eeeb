/// How a strict block can still be ended early (emergency access): wait, then type a random
/// text, at most so many times in any seven days. Set by `[friction]` in a profile file or, as
/// the default for every profile, in simplylockd.toml.
public struct FrictionPolicy: Sendable, Equatable, Codable {
    /// How long to wait, watching a countdown, before the text may be typed.
    public var delay: Duration
    /// How many random characters to type.
    public var typing: Int
    /// Early ends allowed in any rolling seven days; 0: strict means strict.
    public var perWeek: Int

    /// Creates a policy.
    public init(
        delay: Duration = FrictionPolicy.defaultDelay, typing: Int = FrictionPolicy.defaultTyping,
        perWeek: Int = FrictionPolicy.defaultPerWeek
    ) {
        self.delay = delay
        self.typing = typing
        self.perWeek = perWeek
    }

    /// No early end at all: what a strict block is when no `[friction]` is configured.
    public static let strict = FrictionPolicy(delay: defaultDelay, typing: defaultTyping, perWeek: 0)

    /// The wait when `[friction]` leaves `delay` out.
    public static let defaultDelay: Duration = .seconds(60)
    /// The text's length when `[friction]` leaves `typing` out.
    public static let defaultTyping = 40
    /// The allowance when `[friction]` leaves `emergency_per_week` out.
    public static let defaultPerWeek = 1

    /// The longest wait that may be configured.
    public static let maxDelay: Duration = .seconds(86_400)
    /// The longest text that may be configured.
    public static let maxTyping = 400
    /// The largest allowance that may be configured.
    public static let maxPerWeek = 100

    /// Whether any early end is allowed.
    public var allowsUnlocking: Bool { perWeek > 0 }
}

/// The `[friction]` keys one file sets; the keys it leaves out come from the next layer
/// (a profile's from the configuration's, the configuration's from the defaults).
public struct FrictionSettings: Sendable, Equatable, Codable {
    /// `delay`.
    public var delay: Duration?
    /// `typing`.
    public var typing: Int?
    /// `emergency_per_week`.
    public var perWeek: Int?

    /// Creates settings.
    public init(delay: Duration? = nil, typing: Int? = nil, perWeek: Int? = nil) {
        self.delay = delay
        self.typing = typing
        self.perWeek = perWeek
    }

    /// The policy for a profile: each key from the profile's section, else from the
    /// configuration's, else its default. With no `[friction]` anywhere, strict means strict.
    public static func resolve(profile: FrictionSettings?, configuration: FrictionSettings?) -> FrictionPolicy {
        guard profile != nil || configuration != nil else { return .strict }
        return FrictionPolicy(
            delay: profile?.delay ?? configuration?.delay ?? FrictionPolicy.defaultDelay,
            typing: profile?.typing ?? configuration?.typing ?? FrictionPolicy.defaultTyping,
            perWeek: profile?.perWeek ?? configuration?.perWeek ?? FrictionPolicy.defaultPerWeek)
    }
}
