/// What a strict block compares files by: the SHA-256 of the whole file (an exact copy) and
/// the set of its content-defined chunks (a copy with a few bytes appended, changed or
/// inserted keeps almost all of them; see `clinux_chunker.h`).
public struct ContentSignature: Sendable, Equatable {
    /// SHA-256 of the whole file.
    public let digest: ContentDigest
    /// Fingerprints of its chunks (about one per 2 KiB).
    public let chunks: Set<UInt64>
    /// Its size in bytes.
    public let size: Int64

    /// Programs with fewer chunks than this (under about 32 KiB) are matched exactly only: a
    /// handful of chunks says too little about similarity (a small script is mostly a few
    /// common lines).
    public static let minimumChunks = 16

    /// Share of a blocked program's chunks a file must contain to count as a copy of it.
    /// Appending bytes or changing a few keeps over 95 % here; two unrelated programs share
    /// few chunks (see `ContentSignatureTests` for the figures).
    public static let threshold = 0.5

    /// The share of `self`'s chunks (a blocked program) found in `other` (a file being
    /// checked), 0…1: containment rather than Jaccard similarity, so that a copy padded with
    /// any amount of junk still matches.
    public func containedShare(in other: ContentSignature) -> Double {
        guard !chunks.isEmpty else { return 0 }
        let (small, large) = chunks.count <= other.chunks.count ? (chunks, other.chunks) : (other.chunks, chunks)
        let shared = small.reduce(0) { $0 + (large.contains($1) ? 1 : 0) }
        return Double(shared) / Double(chunks.count)
    }

    /// True when `other` is an exact copy or contains at least `threshold` of this program's
    /// chunks (programs of at least `minimumChunks` chunks).
    public func matches(_ other: ContentSignature) -> Bool {
        if other.digest == digest { return true }
        guard chunks.count >= Self.minimumChunks else { return false }
        return containedShare(in: other) >= Self.threshold
    }
}
