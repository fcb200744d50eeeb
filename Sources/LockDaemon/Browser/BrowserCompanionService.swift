import Foundation
import LockCore
import LockNames

/// What the daemon knows of the browser companions: who said hello (so `doctor` and `check`
/// can say whether one is active), and the site meter's reports, clipped per user to the time
/// that really passed before they go to the usage recorder.
public actor BrowserCompanionService {
    /// One companion heard from.
    public struct Hello: Sendable, Equatable {
        public var uid: UInt32
        public var browser: String
        public var extensionVersion: String
        public var lastSeen: Date
        public var lastSeenBoot: BootTime
    }

    /// A report refused as a whole.
    public struct ReportError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Companions kept at most (one per user and browser; a machine has few).
    static let maxCompanions = 64
    /// The longest sample accepted: the extension reports at least every minute.
    public static let maxSampleSeconds = 120.0
    /// The most samples in one report.
    public static let maxSamples = 32

    private let recorder: UsageRecorder
    private let profiles: ProfileService
    private let names: DomainNameParser
    private let clock: @Sendable () -> ClockReading
    private var hellos: [String: Hello] = [:]
    /// Per user, the end of the last stretch counted: a stretch is counted from there at the
    /// earliest, so reports that overlap, repeat or run ahead of the clock add nothing.
    private var countedUntil: [UInt32: Date] = [:]

    /// A service reporting to `recorder`, naming sites after `profiles`' and the catalog's names.
    public init(
        recorder: UsageRecorder, profiles: ProfileService, names: DomainNameParser, clock: @escaping @Sendable () -> ClockReading
    ) {
        self.recorder = recorder
        self.profiles = profiles
        self.names = names
        self.clock = clock
    }

    /// Records a hello of `uid`'s companion in `browser`.
    public func hello(uid: UInt32, browser: String, extensionVersion: String) {
        let now = clock()
        let key = "\(uid)/\(browser)"
        if hellos[key] == nil, hellos.count >= Self.maxCompanions,
            let oldest = hellos.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key
        {
            hellos.removeValue(forKey: oldest)
        }
        hellos[key] = Hello(uid: uid, browser: browser, extensionVersion: extensionVersion, lastSeen: now.wall, lastSeenBoot: now.boot)
    }

    /// Every companion heard from, most recent first, each with whether it is active now (a
    /// hello within `activeSeconds`, counted on the boot clock).
    public func companions(activeSeconds: Int) -> [(hello: Hello, active: Bool)] {
        let now = clock().boot
        return hellos.values.sorted { $0.lastSeen > $1.lastSeen }.map { hello in
            (hello, now.nanoseconds - hello.lastSeenBoot.nanoseconds <= Int64(activeSeconds) * 1_000_000_000)
        }
    }

    /// True when some companion said hello within `activeSeconds`.
    public func anyActive(activeSeconds: Int) -> Bool { companions(activeSeconds: activeSeconds).contains { $0.active } }

    /// Counts `samples` (host, end, seconds) of `uid`'s browser meter; returns the seconds
    /// counted per site.
    public func report(uid: UInt32, samples: [(host: String, end: Date, seconds: Double)]) async throws(ReportError) -> [String: Double] {
        guard samples.count <= Self.maxSamples else { throw ReportError(description: "samples: at most \(Self.maxSamples) in one report") }
        let now = clock()
        var counted: [String: Double] = [:]
        var usage: [UsageSample] = []
        var inUse: [UsageItem: Duration] = [:]
        var parsed: [(site: String, end: Date, seconds: Double)] = []
        for (index, sample) in samples.enumerated() {
            guard sample.seconds.isFinite, sample.seconds > 0, sample.seconds <= Self.maxSampleSeconds else {
                throw ReportError(
                    description: "samples[\(index)].seconds: \(sample.seconds) is not from 0 to \(Int(Self.maxSampleSeconds))")
            }
            let age = now.wall.timeIntervalSince(sample.end)
            guard age.isFinite, age >= -5, age <= 600 else {
                throw ReportError(description: "samples[\(index)].end: not within the last 10 minutes of the daemon's clock")
            }
            let host: String
            do { host = try names.lookupName(sample.host).value } catch {
                throw ReportError(description: "samples[\(index)].host: \(error)")
            }
            let site = await siteName(host)
            parsed.append((site, min(sample.end, now.wall), sample.seconds))
        }
        for sample in parsed {
            let start = max(sample.end.addingTimeInterval(-sample.seconds), countedUntil[uid] ?? .distantPast)
            guard start < sample.end else { continue }
            let seconds = sample.end.timeIntervalSince(start)
            countedUntil[uid] = sample.end
            let item = UsageItem(.site, sample.site)
            usage.append(UsageSample(item: item, meter: .browser, end: sample.end, seconds: seconds))
            inUse[item, default: .zero] += .milliseconds(Int64((seconds * 1000).rounded()))
            counted[sample.site, default: 0] += seconds
        }
        if !usage.isEmpty { await recorder.report(usage, inUse: inUse, at: now) }
        return counted
    }

    /// The name a host's time is counted under: the most specific name a profile or the service
    /// catalog lists that covers it (what the DNS filter and firewall meters count under), or
    /// else its registrable domain (`www.example.co.uk` → `example.co.uk`).
    func siteName(_ host: String) async -> String {
        let catalog = await profiles.catalog
        let all = await profiles.written
        for suffix in DomainName.suffixes(of: host) {
            let name = String(suffix)
            if catalog.services.values.contains(where: { $0.domains.contains(DomainName(normalized: name)) }) { return name }
            if all.contains(where: { $0.domains.contains(DomainName(normalized: name)) }) { return name }
        }
        guard let suffixes = names.publicSuffixes else { return host }
        let publicSuffix = suffixes.publicSuffix(of: host)
        guard host.count > publicSuffix.count else { return host }
        let labels = host.dropLast(publicSuffix.count + 1).split(separator: ".")
        return labels.last.map { "\($0).\(publicSuffix)" } ?? host
    }
}
