// The DNS filter's parts, driven for scripts/bench-dns.sh (not installed, not used by the daemon).
//
//   dns-bench build LIST [--set]     parse LIST, build the suffix set, time lookups; JSON on stdout
//                                    (--set: the same names in a Set<String>, for comparison)
//   dns-bench serve UPSTREAM [LIST] [--metered] [--no-cache]
//                                    run the forwarder on 127.0.0.1 (ephemeral port) in front of
//                                    UPSTREAM (host:port), blocking LIST's names and *.blocked.test;
//                                    --metered: the site meter counts bench.test and 999 other names;
//                                    --no-cache: without the answer cache;
//                                    prints "ready PORT", then reads commands from stdin:
//                                    "swap" (rebuild the policy from LIST and swap it in, answers
//                                    "swapped SECONDS"), "stats" (JSON), "quit"
import CLinux
import Foundation
import LockCore
import LockEnforcement
import LockNames
import Logging

func rssKiB(_ field: String = "VmRSS") -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
    return 0
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("dns-bench: \(message)\n".utf8))
    exit(2)
}

let names = DomainNameParser(publicSuffixes: nil)
let normalize: @Sendable (String) -> String? = { try? names.lookupName($0).value }

/// Streams `path` through the parser into `insert`, 64 KiB at a time.
func parseList(_ path: String, _ insert: (String) -> Void) -> BlocklistReport {
    guard let handle = FileHandle(forReadingAtPath: path) else { fail("cannot open \(path)") }
    var parser = BlocklistParser(normalize: normalize)
    while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
        chunk.withUnsafeBytes { parser.parse($0) { entry in if !entry.isException { insert(entry.name) } } }
    }
    return parser.finish { entry in if !entry.isException { insert(entry.name) } }
}

func buildSet(_ path: String) -> (DomainSuffixSet, BlocklistReport) {
    let builder = DomainSuffixSet.Builder(seed: UInt64.random(in: .min ... .max))
    let report = parseList(path) { builder.insert($0) }
    return (builder.build(), report)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func json(_ object: [String: Any]) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

/// Nanoseconds per lookup over `queries` (each as bytes), best of three passes.
func timeLookups(_ queries: [[UInt8]], _ lookup: (UnsafeRawBufferPointer) -> Bool) -> (ns: Double, hits: Int) {
    var best = Double.infinity
    var hits = 0
    for _ in 0..<3 {
        hits = 0
        let started = ContinuousClock.now
        for query in queries where query.withUnsafeBytes(lookup) { hits += 1 }
        best = min(best, seconds(ContinuousClock.now - started) * 1e9 / Double(queries.count))
    }
    return (best, hits)
}

func build(_ arguments: [String]) {
    guard let path = arguments.first else { fail("build LIST [--set]") }
    let before = rssKiB()
    if arguments.contains("--parse-only") {
        var count = 0
        let started = ContinuousClock.now
        _ = parseList(path) { _ in count += 1 }
        let parsed = ContinuousClock.now - started
        var names: [String] = []
        _ = parseList(path) { names.append($0) }
        let insertStart = ContinuousClock.now
        let builder = DomainSuffixSet.Builder()
        for name in names { builder.insert(name) }
        let inserted = ContinuousClock.now - insertStart
        let finishStart = ContinuousClock.now
        let set = builder.build()
        print(
            json([
                "names": count, "parseSeconds": seconds(parsed), "insertSeconds": seconds(inserted),
                "buildSeconds": seconds(ContinuousClock.now - finishStart), "kept": set.count,
            ]))
        return
    }
    if arguments.contains("--set") {
        let started = ContinuousClock.now
        var names = Set<String>()
        let report = parseList(path) { names.insert($0) }
        let elapsed = ContinuousClock.now - started
        print(
            json([
                "names": names.count, "seconds": seconds(elapsed), "rssBeforeKiB": before,
                "rssAfterKiB": rssKiB(), "peakKiB": rssKiB("VmHWM"), "lines": report.lines,
            ]))
        return
    }
    let started = ContinuousClock.now
    let (set, report) = buildSet(path)
    let elapsed = ContinuousClock.now - started
    let after = rssKiB()
    let peak = rssKiB("VmHWM")  // before the lookup test allocates its queries

    // Queries like real traffic against a list: names under listed ones, and names not listed.
    var listed: [String] = []
    listed.reserveCapacity(500_000)
    set.forEach { if listed.count < 500_000 { listed.append($0) } }
    var random = SystemRandomNumberGenerator()
    let hits = listed.map { Array("www.cdn.\($0)".utf8) }
    let misses = (0..<hits.count).map { _ in Array("host\(UInt32.random(in: 0 ... .max, using: &random)).example.org".utf8) }
    let hitTime = timeLookups(hits) { set.matchLength($0) != nil }
    let missTime = timeLookups(misses) { set.matchLength($0) != nil }
    let policy = DNSFilterPolicy(.empty, lists: [set])
    let policyTime = timeLookups(hits + misses) { policy.verdict($0) != nil }
    print(
        json([
            "names": set.count, "lines": report.lines, "blockedEntries": report.blocked, "skipped": report.skippedTotal,
            "seconds": seconds(elapsed), "rssBeforeKiB": before, "rssAfterKiB": after, "peakKiB": peak,
            "allocatedBytes": set.allocatedBytes,
            "lookupHitNs": hitTime.ns, "lookupMissNs": missTime.ns, "verdictNs": policyTime.ns,
            "hitsFound": hitTime.hits, "missesFound": missTime.hits,
        ]))
}

func serve(_ given: [String]) async {
    let metered = given.contains("--metered")
    let cached = !given.contains("--no-cache")
    let arguments = given.filter { $0 != "--metered" && $0 != "--no-cache" }
    guard let upstreamText = arguments.first, let upstream = try? ResolverConfiguration.Server(parsing: upstreamText) else {
        fail("serve HOST:PORT [LIST]")
    }
    let listPath = arguments.dropFirst().first
    let sessions = DesiredBlock(rules: [BlockRules(block: DomainSet(["blocked.test"]))])
    var logger = Logger(label: "dns-bench")
    logger.logLevel = .warning
    let forwarder = DNSForwarder(
        settings: DNSForwarder.Settings(listenAddresses: ["127.0.0.1"], port: 0, mark: nil, cacheSize: cached ? 10_000 : 0),
        upstream: ResolverConfiguration(servers: [upstream]), logger: logger)
    let idle = rssKiB()
    var built = Duration.zero
    if let listPath {
        let started = ContinuousClock.now
        let (set, _) = buildSet(listPath)
        forwarder.setPolicy(DNSFilterPolicy(sessions, lists: [set]))
        built = ContinuousClock.now - started
    } else {
        forwarder.setPolicy(DNSFilterPolicy(sessions))
    }
    if metered { forwarder.setMetered(DomainSuffixSet(["bench.test"] + (0..<999).map { "site\($0).example" })) }
    malloc_trim(0)
    let port: UInt16
    do { port = try await forwarder.start() } catch { fail("\(error)") }
    print("ready \(port) \(json(["idleKiB": idle, "rssKiB": rssKiB(), "buildSeconds": seconds(built)]))")
    fflush(nil)
    while let line = readLine() {
        switch line {
        case "swap":
            guard let listPath else {
                print("swapped 0")
                break
            }
            let started = ContinuousClock.now
            let (set, _) = buildSet(listPath)
            forwarder.setPolicy(DNSFilterPolicy(sessions, lists: [set]))
            malloc_trim(0)
            print("swapped \(seconds(ContinuousClock.now - started)) \(json(["rssKiB": rssKiB(), "peakKiB": rssKiB("VmHWM")]))")
        case "stats":
            let statistics = await forwarder.statistics()
            print(
                json([
                    "rssKiB": rssKiB(), "peakKiB": rssKiB("VmHWM"), "queries": statistics.queries,
                    "blocked": statistics.blocked, "forwarded": statistics.forwarded, "failed": statistics.failed,
                    "answered": statistics.answered, "timeouts": statistics.upstreamTimeouts, "fromCache": statistics.fromCache,
                    "metered": (await forwarder.takeMeterCounts()).values.reduce(0, +),
                ]))
        case "quit":
            await forwarder.stop()
            return
        default:
            print("unknown command \(line)")
        }
        fflush(nil)
    }
    await forwarder.stop()
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "build": build(Array(arguments.dropFirst()))
case "serve": await serve(Array(arguments.dropFirst()))
default: fail("usage: dns-bench build LIST [--set] | dns-bench serve HOST:PORT [LIST]")
}
