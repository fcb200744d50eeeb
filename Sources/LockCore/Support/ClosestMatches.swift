/// The candidates closest to a name nobody knows, for "did you mean" messages: by edit
/// distance (Levenshtein, ignoring case), within a third of the name's length (at least 2),
/// plus candidates that contain the name or that it contains.
public enum ClosestMatches {
    /// Up to `limit` candidates, closest first (ties alphabetical).
    public static func find(_ query: String, among candidates: some Sequence<String>, limit: Int = 3) -> [String] {
        let needle = Array(query.lowercased())
        guard !needle.isEmpty else { return [] }
        let threshold = max(2, needle.count / 3)
        var scored: [(distance: Int, name: String)] = []
        var seen: Set<String> = []
        for candidate in candidates where seen.insert(candidate).inserted {
            let lowered = candidate.lowercased()
            let hay = Array(lowered)
            // Long candidates cannot be within the threshold; skip the quadratic work.
            if abs(hay.count - needle.count) <= threshold, let distance = distance(needle, hay, limit: threshold) {
                scored.append((distance, candidate))
            } else if needle.count >= 3, lowered.contains(String(needle)) || String(needle).contains(lowered) && hay.count >= 3 {
                scored.append((threshold + 1, candidate))
            }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        return scored.prefix(limit).map(\.name)
    }

    /// Levenshtein distance, or nil once it must exceed `limit`.
    static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int? {
        if a.isEmpty { return b.count <= limit ? b.count : nil }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            if !b.isEmpty {
                for j in 1...b.count {
                    let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                    current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                    rowMinimum = min(rowMinimum, current[j])
                }
            }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
