import Foundation
import LockCore
import Logging

/// Resolves names by asking DNS servers directly over UDP (TCP for truncated answers), never
/// through the system's name service, so /etc/hosts and its blocked-name entries are bypassed.
///
/// The servers come from resolv.conf (re-read on every run, so DHCP and VPN changes are
/// followed) or from the daemon's configuration. When resolv.conf names only systemd-resolved's
/// stub, which also answers from /etc/hosts, the upstream list that systemd-resolved publishes
/// is used instead.
public final class DNSResolver: NameResolver {
    /// Where the list of servers comes from.
    public enum Servers: Sendable, Equatable {
        /// Read this resolv.conf(5) file on every run.
        case resolvConf(path: String)
        /// Use exactly these servers and settings (`resolvers = [...]` in the configuration).
        case configured(ResolverConfiguration)
    }

    private let servers: Servers
    private let systemdUpstreamPath: String
    private let deadline: Duration
    private let maxInFlight: Int
    private let mark: UInt32?
    private let stubUpstreams: (@Sendable () -> [ResolverConfiguration.Server])?
    private let logger: Logger

    /// Creates a resolver.
    ///
    /// - Parameters:
    ///   - servers: where the servers come from; resolv.conf by default.
    ///   - systemdUpstreamPath: the upstream list systemd-resolved writes, used when resolv.conf
    ///     points only at its stub.
    ///   - deadline: the longest one run may take, however many names; names not answered by
    ///     then are reported as failed (their earlier addresses stay blocked).
    ///   - maxInFlight: queries outstanding at once, so that thousands of names neither flood
    ///     the server nor take a socket each.
    ///   - mark: `SO_MARK` of its sockets; give the DNS filter's mark when the filter's redirect
    ///     may be in force, or these queries would be answered by the filter itself (blocked
    ///     names as 0.0.0.0).
    ///   - stubUpstreams: the upstream servers of a local stub resolver (learnt by the DNS
    ///     filter), asked instead of the stub: with the filter's redirect in force, the stub's
    ///     own upstream queries reach the filter, which answers blocked names with 0.0.0.0.
    public init(
        servers: Servers = .resolvConf(path: "/etc/resolv.conf"),
        systemdUpstreamPath: String = "/run/systemd/resolve/resolv.conf",
        deadline: Duration = .seconds(20),
        maxInFlight: Int = 128,
        mark: UInt32? = nil,
        stubUpstreams: (@Sendable () -> [ResolverConfiguration.Server])? = nil,
        logger: Logger = Logger(label: "simplylock.dns")
    ) {
        self.mark = mark
        self.stubUpstreams = stubUpstreams
        self.servers = servers
        self.systemdUpstreamPath = systemdUpstreamPath
        self.deadline = deadline
        self.maxInFlight = max(1, maxInFlight)
        self.logger = logger
    }

    /// The configuration the next run would use.
    public func configuration() -> ResolverConfiguration {
        switch servers {
        case .configured(let configuration):
            return configuration
        case .resolvConf(let path):
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let parsed = ResolverConfiguration.parse(resolvConf: text, interfaceIndex: Self.interfaceIndex)
            if parsed.isSystemdStubOnly, let upstreamText = try? String(contentsOfFile: systemdUpstreamPath, encoding: .utf8) {
                let upstream = ResolverConfiguration.parse(resolvConf: upstreamText, interfaceIndex: Self.interfaceIndex)
                if !upstream.isSystemdStubOnly, upstreamText.contains("nameserver") { return upstream }
            }
            return parsed
        }
    }

    public func resolve(_ names: [String]) async -> [String: NameResolution] {
        guard !names.isEmpty else { return [:] }
        let configured = configuration()
        guard let stubUpstreams, configured.servers.contains(where: \.isLoopback) else { return await run(configured, names) }
        let first = Self.replacingStubs(configured, with: stubUpstreams())
        var results = await run(first, names)
        // Asked through the stub (nothing learnt yet), blocked names come back as the filter's
        // 0.0.0.0; the stub's upstream queries for them taught where to ask instead.
        let again = names.filter { results[$0]?.isSinkholed == true }
        let learnt = Self.replacingStubs(configured, with: stubUpstreams())
        if !again.isEmpty, learnt.servers != first.servers {
            results.merge(await run(learnt, again)) { _, new in new }
        }
        return results
    }

    /// `configuration` with its loopback servers replaced by `upstreams` (when there are any).
    static func replacingStubs(_ configuration: ResolverConfiguration, with upstreams: [ResolverConfiguration.Server])
        -> ResolverConfiguration
    {
        guard !upstreams.isEmpty else { return configuration }
        var replaced = configuration
        replaced.servers = upstreams + configuration.servers.filter { !$0.isLoopback && !upstreams.contains($0) }
        return replaced
    }

    private func run(_ configuration: ResolverConfiguration, _ names: [String]) async -> [String: NameResolution] {
        let batch = DNSQueryBatch(configuration: configuration, deadline: deadline, maxInFlight: maxInFlight, mark: mark)
        let logger = self.logger
        // The batch blocks in poll(2) for up to the deadline: give it a thread of its own rather
        // than one of the few threads of Swift's cooperative pool.
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                let started = ContinuousClock.now
                let results = batch.run(names)
                let failed = results.values.filter { !$0.isComplete }.count
                logger.debug(
                    "resolved names",
                    metadata: [
                        "names": "\(names.count)", "failed": "\(failed)",
                        "servers": "\(batch.configuration.servers.map(\.description).joined(separator: ","))",
                        "duration": "\(ContinuousClock.now - started)",
                    ])
                continuation.resume(returning: results)
            }
            thread.name = "simplylock-dns"
            thread.start()
        }
    }

    public func nameservers() async -> [IPNetwork] {
        let servers = configuration().servers + (stubUpstreams?() ?? [])
        return Array(Set(servers.map(\.address))).sorted()
    }

    private static func interfaceIndex(_ name: String) -> UInt32? {
        let index = if_nametoindex(name)
        return index == 0 ? nil : index
    }
}
