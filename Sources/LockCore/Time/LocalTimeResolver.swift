import Foundation

/// Converts between instants and wall-clock times in one zone, and says when a wall-clock time
/// does not exist (spring-forward gap) or exists twice (fall-back overlap).
///
/// Instants and wall-clock times are whole seconds since 1970 (UTC and "local" respectively).
/// Only `TimeZone.secondsFromGMT(for:)` is consulted, which is cheap and exact for any zone
/// whose transitions are more than a day apart.
struct LocalTimeResolver: Sendable {
    /// What a wall-clock time corresponds to.
    enum Resolution: Sendable, Equatable {
        /// Exactly one instant shows this wall-clock time.
        case unique(Int64)
        /// Two instants show it: once before a fall-back transition and once after.
        case repeated(first: Int64, second: Int64)
        /// No instant shows it; the clock jumped forward by `shift` seconds at `transition`.
        case skipped(transition: Int64, shift: Int64)
    }

    let zone: TimeZone

    /// The zone with this IANA name (`Europe/Berlin`), or UTC for `UTC` in any case.
    ///
    /// Foundation also accepts ad-hoc offsets such as `GMT+0500`, which are not zone names and
    /// which systemd rejects, so those are refused here.
    static func timeZone(named name: String) -> TimeZone? {
        if name.uppercased() == "UTC" { return TimeZone(identifier: "UTC") }
        let customOffset =
            (name.hasPrefix("GMT") || name.hasPrefix("UTC")) && name.count > 3
            && (name.dropFirst(3).first == "+" || name.dropFirst(3).first == "-")
            && !["GMT+0", "GMT-0"].contains(name)
        guard !customOffset, !name.isEmpty else { return nil }
        return TimeZone(identifier: name)
    }

    func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }

    func localSeconds(at instant: Int64) -> Int64 { instant + offset(at: instant) }

    func civilTime(at instant: Int64) -> CivilTime { CivilTime(localSeconds: localSeconds(at: instant)) }

    func resolve(_ local: Int64) -> Resolution {
        // The offsets in force a day either side include both offsets of any transition close
        // enough to matter (offsets never exceed ±14 h).
        var offsets: [Int64] = []
        for probe in [local - 86_400, local, local + 86_400] {
            let candidate = offset(at: probe)
            if !offsets.contains(candidate) { offsets.append(candidate) }
        }
        let solutions = offsets.map { local - $0 }.filter { localSeconds(at: $0) == local }.sorted()
        if let first = solutions.first, let last = solutions.last {
            return first == last ? .unique(first) : .repeated(first: first, second: last)
        }
        guard let largest = offsets.max(), let smallest = offsets.min(), largest > smallest else {
            return .unique(local - offsets[0])
        }
        // Between these two instants the offset changes from the smaller to the larger one.
        let before = offset(at: local - largest)
        let transition = firstInstant(after: local - largest, upTo: local - smallest, differingFrom: before)
        return .skipped(transition: transition, shift: offset(at: transition) - before)
    }

    /// The instant a wall-clock time first appears, or, when it is skipped, the first instant
    /// after the gap. Used for window ends, which must never be skipped.
    func earliestInstant(for local: Int64) -> Int64 {
        switch resolve(local) {
        case .unique(let instant), .repeated(let instant, _): instant
        case .skipped(let transition, _): transition
        }
    }

    /// When `instant` lies in the second pass through a repeated range of wall-clock times
    /// (after a fall-back), the instant at which that second pass ends; otherwise `nil`.
    func endOfSecondPass(containing instant: Int64) -> Int64? {
        guard case .repeated(let first, let second) = resolve(localSeconds(at: instant)), instant == second
        else { return nil }
        let transition = firstInstant(after: first, upTo: second, differingFrom: offset(at: first))
        return transition + (second - first)
    }

    /// The first instant in `(lower, upper]` whose offset is not `offset`; `upper` must qualify.
    private func firstInstant(after lower: Int64, upTo upper: Int64, differingFrom offset: Int64) -> Int64 {
        var (low, high) = (lower, upper)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if self.offset(at: middle) == offset { low = middle } else { high = middle }
        }
        return high
    }
}
