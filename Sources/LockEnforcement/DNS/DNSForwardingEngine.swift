import LockCore
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The forwarder's work, confined to its one event loop: answer blocked names, multiplex the
/// rest over a few upstream UDP sockets, retry on the next server after a timeout, fall back to
/// TCP for truncated answers, and pass every upstream answer back unchanged except for its ID.
///
/// Nothing here locks except reading the current policy and server list, which the forwarder
/// swaps from other threads; all other state belongs to the loop.
final class DNSForwardingEngine {
    /// Upstream answers longer than this are treated as truncated (and fetched over TCP): the
    /// receive buffers hold this much, and queries are forwarded asking for no more.
    static let upstreamPayloadLimit = 4096

    let eventLoop: any EventLoop
    private let settings: DNSForwarder.Settings
    let shared: DNSForwarder.Shared
    private let onBlocked: (@Sendable (DNSBlockedQuery) -> Void)?
    private let logger: Logger

    /// Upstream UDP sockets, by family (0 IPv4, 1 IPv6).
    var upstreamChannels: [[any Channel]] = [[], []]
    var pending: [UInt32: Pending] = [:]
    var timeouts = CircularBuffer<Timeout>(initialCapacity: 1024)
    var timer: Scheduled<Void>?
    private var serial: UInt64 = 0
    var preferredServer = 0
    private var unflushed: [any Channel] = []
    private var tcpInFlight = 0
    private var random = RandomPool()
    private var cache: DNSAnswerCache
    /// The upstream generation the cache's answers came from (`Shared.upstreamGeneration`).
    private var cacheGeneration: UInt64 = 0
    var statistics = DNSForwarderStatistics()
    /// Answered queries per metered name since the site meter last took them.
    private var meterCounts: [String: Int] = [:]
    /// Finds where redirected queries were sent; nil when the kernel does not answer here.
    private let conntrack: ConntrackLookup?
    /// Why `conntrack` is nil.
    let conntrackFailure: String?
    /// Counts the marked sends, so the table's counters can tell the daemon's from borrowers'.
    private let ledger: ExemptionLedger?

    init(
        eventLoop: any EventLoop, settings: DNSForwarder.Settings, shared: DNSForwarder.Shared,
        onBlocked: (@Sendable (DNSBlockedQuery) -> Void)?, logger: Logger
    ) {
        self.eventLoop = eventLoop
        self.settings = settings
        self.shared = shared
        self.onBlocked = onBlocked
        self.logger = logger
        self.cache = DNSAnswerCache(capacity: settings.cacheSize, maxTTL: settings.cacheMaxTTL)
        self.ledger = ExemptionLedger.of(mark: settings.mark)
        var failure: String?
        self.conntrack = ConntrackLookup(failure: &failure)
        self.conntrackFailure = failure
    }

    var currentStatistics: DNSForwarderStatistics {
        var result = statistics
        result.inFlight = pending.count + tcpInFlight
        result.cacheEntries = cache.count
        return result
    }

    // MARK: - Client side

    /// A packet from a client (a UDP datagram, or one TCP frame without its length).
    func handleQuery(_ buffer: ByteBuffer, from client: Client) {
        statistics.queries += 1
        buffer.withUnsafeReadableBytes { packet in
            withUnsafeTemporaryAllocation(byteCount: 256, alignment: 1) { nameBuffer in
                switch DNSQuery.parse(packet, name: nameBuffer) {
                case .ignore:
                    statistics.dropped += 1
                case .reply(let bytes):
                    statistics.refused += 1
                    send(bytes, to: client)
                case .query(let query):
                    let name = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(nameBuffer)[0..<query.nameLength])
                    let policy = shared.policy.withLock { $0 }
                    if let rule = policy.verdict(name) {
                        statistics.blocked += 1
                        // The firewall's resolver learns the stub's upstream from the stub's queries;
                        // the first ones it sees may be for blocked names.
                        if shared.stubUpstreams.wantsSample { _ = originalDestination(of: client) }
                        send(query.blockedResponse(packet, ttl: settings.blockedTTL), to: client)
                        onBlocked?(
                            DNSBlockedQuery(
                                name: String(decoding: name, as: UTF8.self), rule: rule,
                                client: client.description, type: query.type, overTCP: client.overTCP))
                    } else {
                        forward(buffer, query, packet, to: client, metered: meteredName(name))
                    }
                }
            }
        }
    }

    /// The metered name covering `name`, if any: one hash lookup per label for the names
    /// no profile or service lists, an allocation only for those it does.
    private func meteredName(_ name: UnsafeRawBufferPointer) -> String? {
        let metered = shared.metered.withLock { $0 }
        guard !metered.isEmpty, let length = metered.matchLength(name) else { return nil }
        var end = name.count
        if end > 0, name[end - 1] == UInt8(ascii: ".") { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: name[(end - length)..<end]), as: UTF8.self).lowercased()
    }

    /// The site meter's counts so far, emptied.
    func takeMeterCounts() -> [String: Int] {
        defer { meterCounts.removeAll(keepingCapacity: true) }
        return meterCounts
    }

    private func forward(
        _ buffer: ByteBuffer, _ query: DNSQuery, _ packet: UnsafeRawBufferPointer, to client: Client, metered: String? = nil
    ) {
        let servers = shared.servers.withLock { $0 }
        let original = originalDestination(of: client)
        var cacheKey: [UInt8]?
        if settings.cacheSize > 0 {
            let key = DNSAnswerCache.key(packet, query, server: original.map(Self.serverKey) ?? [])
            let question = UnsafeRawBufferPointer(rebasing: packet[12..<query.questionEnd])
            let generation = shared.upstreamGeneration.load(ordering: .relaxed) &+ shared.stubUpstreams.generation
            if generation != cacheGeneration {
                // Other servers now (resolv.conf changed, or the stub learnt a new upstream: the
                // machine moved networks, where the same address may answer otherwise).
                cache.removeAll()
                cacheGeneration = generation
            }
            if let cached = cache.answer(
                key, id: query.id, flags: query.flags, question: question, now: NIODeadline.now().uptimeNanoseconds),
                client.overTCP || cached.count <= query.udpLimit
            {
                statistics.fromCache += 1
                if let metered { meterCounts[metered, default: 0] += 1 }
                return send(cached, to: client)
            }
            cacheKey = key
        }
        guard original != nil || !servers.isEmpty, pending.count < settings.maxInFlight else {
            statistics.failed += 1
            if servers.isEmpty { logger.warning("no upstream DNS server configured; answering SERVFAIL") }
            return send(query.response(packet, rcode: 2), to: client)
        }
        var copy = buffer
        // Upstream receive buffers hold 4096 bytes: ask for no more (the server sets TC beyond,
        // and the full answer comes over TCP).
        if let edns = query.edns, Int(edns.payloadSize) > Self.upstreamPayloadLimit {
            copy.setInteger(UInt16(Self.upstreamPayloadLimit), at: copy.readerIndex + edns.payloadSizeOffset)
        }
        statistics.forwarded += 1
        if let original {
            statistics.toOriginalDestination += 1
            return send(
                Pending(
                    client: client, packet: copy, query: query, tries: 0, server: DNSUpstreamServer(original: original), serverIndex: 0,
                    serial: 0, original: true, metered: metered, cacheKey: cacheKey))
        }
        let index = preferredServer % servers.count
        send(
            Pending(
                client: client, packet: copy, query: query, tries: 0, server: servers[index], serverIndex: index, serial: 0,
                metered: metered, cacheKey: cacheKey))
    }

    /// Where a redirected query was going (the machine's own resolver chain: a stub's
    /// upstream, a program's `@server`); nil for a query sent to the forwarder itself.
    private func originalDestination(of client: Client) -> NIOCore.SocketAddress? {
        guard let conntrack, shared.redirected.load(ordering: .relaxed) else { return nil }
        let (channel, peer, proto): (any Channel, NIOCore.SocketAddress?, Int32) =
            switch client {
            case .datagram(let channel, let address): (channel, address, Int32(IPPROTO_UDP))
            case .stream(let channel): (channel, channel.remoteAddress, Int32(IPPROTO_TCP))
            }
        guard let local = channel.localAddress, let peer,
            let original = conntrack.originalDestination(protocol: proto, local: local, peer: peer),
            original != local
        else { return nil }
        shared.stubUpstreams.observe(original: original, client: peer, proto: proto)
        return original
    }

    /// Sends one try of `entry` to its server on a random upstream socket with a fresh random ID.
    private func send(_ entry: Pending) {
        var entry = entry
        let family = entry.server.family
        let channels = upstreamChannels[family]
        guard !channels.isEmpty else {
            logger.debug("no upstream socket for the server's address family", metadata: ["server": "\(entry.server.description)"])
            return nextTry(entry, after: "no socket")
        }
        let socket = random.below(channels.count)
        var key: UInt32
        repeat {
            key = UInt32(family) << 20 | UInt32(socket) << 16 | UInt32(random.uint16())
        } while pending[key] != nil
        var out = entry.packet
        out.setInteger(UInt16(truncatingIfNeeded: key), at: out.readerIndex)
        ledger?.sendingDatagram(to: entry.server.address.port ?? 0)
        channels[socket].write(AddressedEnvelope(remoteAddress: entry.server.address, data: out), promise: nil)
        markUnflushed(channels[socket])
        serial += 1
        entry.serial = serial
        pending[key] = entry
        timeouts.append(Timeout(key: key, serial: serial, deadline: .now() + TimeAmount(settings.timeout)))
        armTimer()
    }

    /// Moves `entry` on to the next server, or answers SERVFAIL when its tries are used up.
    func nextTry(_ entry: Pending, after reason: String) {
        var entry = entry
        entry.tries += 1
        let servers = shared.servers.withLock { $0 }
        guard entry.tries < settings.attempts, entry.original || !servers.isEmpty else {
            statistics.failed += 1
            entry.packet.withUnsafeReadableBytes { send(entry.query.response($0, rcode: 2), to: entry.client) }
            return
        }
        if !entry.original {
            entry.serverIndex = (entry.serverIndex + 1) % servers.count
            entry.server = servers[entry.serverIndex]
        }
        send(entry)
    }

    // MARK: - Upstream side

    /// A datagram from an upstream socket.
    func handleUpstreamAnswer(_ envelope: AddressedEnvelope<ByteBuffer>, family: Int, socket: Int) {
        let buffer = envelope.data
        guard buffer.readableBytes >= 12, let id = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self) else {
            statistics.unmatched += 1
            return
        }
        let key = UInt32(family) << 20 | UInt32(socket) << 16 | UInt32(id)
        guard let entry = pending[key], entry.server.isSource(envelope.remoteAddress), isAnswer(buffer, to: entry) else {
            statistics.unmatched += 1
            return
        }
        pending[key] = nil
        let flags = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) ?? 0
        let rcode = flags & 0xf
        if rcode == 2 || rcode == 5 {
            // SERVFAIL or REFUSED: another server may do better; the last one's word is passed on.
            let servers = shared.servers.withLock { $0.count }
            if !entry.original, entry.tries + 1 < settings.attempts, servers > 1 { return nextTry(entry, after: "rcode \(rcode)") }
        } else if !entry.original {
            preferredServer = entry.serverIndex
        }
        if flags & 0x0200 != 0 || buffer.readableBytes >= Self.upstreamPayloadLimit {
            return fetchOverTCP(entry, truncated: buffer)
        }
        deliver(buffer, for: entry)
    }

    private func isAnswer(_ buffer: ByteBuffer, to entry: Pending) -> Bool {
        guard let flags = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self), flags & 0x8000 != 0 else { return false }
        return buffer.withUnsafeReadableBytes { response in
            entry.packet.withUnsafeReadableBytes { query in
                DNSQuery.sameQuestion(response, query, questionEnd: entry.query.questionEnd)
            }
        }
    }

    /// Passes an upstream answer to the client with the client's ID.
    private func deliver(_ answer: ByteBuffer, for entry: Pending) {
        if let key = entry.cacheKey {
            answer.withUnsafeReadableBytes { cache.store(key, $0, now: NIODeadline.now().uptimeNanoseconds) }
        }
        var out = answer
        out.setInteger(entry.query.id, at: out.readerIndex)
        statistics.answered += 1
        if let metered = entry.metered { meterCounts[metered, default: 0] += 1 }
        send(out, to: entry.client)
    }

    /// Asks the same server again over TCP (RFC 7766) for an answer that did not fit in UDP.
    private func fetchOverTCP(_ entry: Pending, truncated: ByteBuffer) {
        statistics.tcpFallbacks += 1
        tcpInFlight += 1
        let id = random.uint16()
        var query = entry.packet
        query.setInteger(id, at: query.readerIndex)
        var buffer = ByteBufferAllocator().buffer(capacity: query.readableBytes + 2)
        buffer.writeInteger(UInt16(query.readableBytes))
        buffer.writeImmutableBuffer(query)
        let framed = buffer
        let promise = eventLoop.makePromise(of: ByteBuffer.self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(DNSFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(DNSUpstreamStreamHandler(promise: promise))
                }
            }
        ledger?.connecting(to: entry.server.address.port ?? 0)
        let connection: EventLoopFuture<any Channel>
        do {
            connection = bootstrap.withConnectedSocket(
                try DNSForwarder.upstreamStreamSocket(to: entry.server.address, mark: settings.mark))
        } catch {
            connection = eventLoop.makeFailedFuture(error)
        }
        connection.whenSuccess { channel in channel.writeAndFlush(framed, promise: nil) }
        connection.whenFailure { promise.fail($0) }
        let timeout = eventLoop.scheduleTask(in: TimeAmount(settings.timeout)) {
            promise.fail(DNSForwarderError(message: "TCP answer timed out"))
        }
        promise.futureResult.assumeIsolated().whenComplete { [self] result in
            timeout.cancel()
            connection.whenSuccess { $0.close(promise: nil) }
            tcpInFlight -= 1
            switch result {
            case .success(let answer)
            where answer.getInteger(at: answer.readerIndex, as: UInt16.self) == id
                && isAnswer(answer, to: entry):
                // A UDP client can only take what fits its buffer; beyond that it gets the
                // truncated answer and asks again over TCP itself.
                if case .datagram = entry.client, answer.readableBytes > entry.query.udpLimit {
                    deliver(truncated, for: entry)
                } else {
                    deliver(answer, for: entry)
                }
            default:
                if case .datagram = entry.client {
                    deliver(truncated, for: entry)
                } else {
                    statistics.failed += 1
                    entry.packet.withUnsafeReadableBytes { send(entry.query.response($0, rcode: 2), to: entry.client) }
                }
            }
            flush()
        }
    }

    // MARK: - Output

    private func send(_ bytes: [UInt8], to client: Client) {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        send(buffer, to: client)
    }

    private func send(_ buffer: ByteBuffer, to client: Client) {
        switch client {
        case .datagram(let channel, let address):
            channel.write(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
            markUnflushed(channel)
        case .stream(let channel):
            var framed = channel.allocator.buffer(capacity: buffer.readableBytes + 2)
            framed.writeInteger(UInt16(truncatingIfNeeded: buffer.readableBytes))
            framed.writeImmutableBuffer(buffer)
            channel.write(framed, promise: nil)
            markUnflushed(channel)
        }
    }

    private func markUnflushed(_ channel: any Channel) {
        if !unflushed.contains(where: { $0 === channel }) { unflushed.append(channel) }
    }

    /// Flushes what the last batch of reads wrote (one `sendmmsg` per socket where possible).
    func flush() {
        for channel in unflushed { channel.flush() }
        unflushed.removeAll(keepingCapacity: true)
    }

    func tcpConnectionOpened() -> Bool {
        guard statistics.tcpConnections < settings.maxTCPConnections else { return false }
        statistics.tcpConnections += 1
        return true
    }

    func tcpConnectionClosed() { statistics.tcpConnections -= 1 }

    /// Drops everything in flight (the forwarder is stopping).
    func shutDown() {
        timer?.cancel()
        timer = nil
        pending.removeAll()
        timeouts.removeAll()
        cache.removeAll()
        unflushed.removeAll()
    }
}
