import NIOCore

/// Hands each datagram that arrives on an upstream socket to the engine.
final class DNSUpstreamDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let engine: DNSForwardingEngine
    private let family: Int
    private let socket: Int

    init(engine: DNSForwardingEngine, family: Int, socket: Int) {
        self.engine = engine
        self.family = family
        self.socket = socket
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        engine.handleUpstreamAnswer(Self.unwrapInboundIn(data), family: family, socket: socket)
    }

    func channelReadComplete(context: ChannelHandlerContext) { engine.flush() }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port unreachable from a server that is down arrives here; the timeout moves the
        // query on to the next server.
    }
}
