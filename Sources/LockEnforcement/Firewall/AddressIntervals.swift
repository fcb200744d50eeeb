import LockCore

/// A set of IPv4 and IPv6 addresses as sorted, disjoint, non-adjacent intervals: the shape an
/// nftables interval set holds.
///
/// Overlapping and adjacent networks are merged here rather than by nft's `auto-merge`, which
/// keeps the kernel's element count minimal and makes the rendered elements deterministic, so
/// two rulesets can be compared to decide whether a commit is needed.
public struct AddressIntervals: Sendable, Equatable {
    /// IPv4 intervals (addresses in the low 32 bits), sorted, disjoint and non-adjacent.
    public private(set) var ipv4: [ClosedRange<UInt128>]
    /// IPv6 intervals, sorted, disjoint and non-adjacent.
    public private(set) var ipv6: [ClosedRange<UInt128>]

    /// Merges the given networks.
    public init(_ networks: some Sequence<IPNetwork>) {
        var v4: [ClosedRange<UInt128>] = []
        var v6: [ClosedRange<UInt128>] = []
        for network in networks {
            let range = network.address...network.lastAddress
            if network.family == .ipv4 { v4.append(range) } else { v6.append(range) }
        }
        ipv4 = Self.merge(v4)
        ipv6 = Self.merge(v6)
    }

    /// No addresses.
    public static let empty = AddressIntervals([])

    /// Number of intervals (kernel set elements) in both families.
    public var count: Int { ipv4.count + ipv6.count }

    /// True when there is no interval.
    public var isEmpty: Bool { ipv4.isEmpty && ipv6.isEmpty }

    /// True when `address` (a single address) lies in one of the intervals.
    public func contains(_ address: IPNetwork) -> Bool {
        let intervals = address.family == .ipv4 ? ipv4 : ipv6
        var low = 0, high = intervals.count
        while low < high {
            let middle = (low + high) / 2
            if intervals[middle].upperBound < address.address { low = middle + 1 } else { high = middle }
        }
        return low < intervals.count && intervals[low].contains(address.address)
            && intervals[low].contains(address.lastAddress)
    }

    /// The intervals of one family in nft element syntax: `198.51.100.7`, `203.0.113.0/24`, or
    /// `198.51.100.1-198.51.100.6` where a range is not a single prefix.
    public func elements(_ family: IPNetwork.Family) -> [String] {
        (family == .ipv4 ? ipv4 : ipv6).map { Self.render($0, family: family) }
    }

    /// Intervals up to this many addresses are listed address by address in a hash set.
    public static let expansionLimit: UInt128 = 16

    /// The intervals of one family split for a pair of nft sets: single addresses (including
    /// short runs, listed one by one) for a hash set, and longer ranges for an interval set.
    ///
    /// A hash set needs no overlap checks, so nft does not have to read the kernel's current
    /// elements before changing it: with 100 000 resolved addresses that keeps a commit at about
    /// half a second and nft's memory at about 40 MB, where an interval set of the same size
    /// takes about twice both.
    ///
    /// Single addresses in `apart` are returned on their own, as `separated`.
    public func split(_ family: IPNetwork.Family, apart: Set<UInt128> = []) -> (
        addresses: [String], ranges: [String], separated: [String]
    ) {
        var addresses: [String] = []
        var ranges: [String] = []
        var separated: [String] = []
        for range in family == .ipv4 ? ipv4 : ipv6 {
            if range.upperBound - range.lowerBound < Self.expansionLimit {
                var value = range.lowerBound
                while true {
                    if apart.contains(value) {
                        separated.append(IPNetwork.format(address: value, family: family))
                    } else {
                        addresses.append(IPNetwork.format(address: value, family: family))
                    }
                    if value == range.upperBound { break }
                    value += 1
                }
            } else {
                ranges.append(Self.render(range, family: family))
            }
        }
        return (addresses, ranges, separated)
    }

    static func render(_ range: ClosedRange<UInt128>, family: IPNetwork.Family) -> String {
        let first = IPNetwork.format(address: range.lowerBound, family: family)
        if range.lowerBound == range.upperBound { return first }
        let width = family.bitWidth
        let hostBits = range.upperBound - range.lowerBound
        // The range is one prefix when its size is a power of two and its start is aligned.
        if hostBits & (hostBits &+ 1) == 0, range.lowerBound & hostBits == 0 {
            let prefix = width - (UInt128.bitWidth - hostBits.leadingZeroBitCount)
            return "\(first)/\(prefix)"
        }
        return "\(first)-\(IPNetwork.format(address: range.upperBound, family: family))"
    }

    private static func merge(_ ranges: [ClosedRange<UInt128>]) -> [ClosedRange<UInt128>] {
        guard !ranges.isEmpty else { return [] }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var result: [ClosedRange<UInt128>] = []
        result.reserveCapacity(sorted.count)
        var current = sorted[0]
        for range in sorted.dropFirst() {
            // Adjacent counts as touching: 10.0.0.0/25 and 10.0.0.128/25 become one /24.
            if current.upperBound == .max || range.lowerBound <= current.upperBound + 1 {
                if range.upperBound > current.upperBound { current = current.lowerBound...range.upperBound }
            } else {
                result.append(current)
                current = range
            }
        }
        result.append(current)
        return result
    }
}
