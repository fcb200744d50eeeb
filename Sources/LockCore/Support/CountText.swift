/// Counts for people, with the noun in the right number: `1 domain`, `2 domains`, `0 files`.
public enum CountText {
    /// `count` and `singular`, made plural with `plural` (default: `singular` + "s") unless
    /// the count is one.
    public static func of(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
