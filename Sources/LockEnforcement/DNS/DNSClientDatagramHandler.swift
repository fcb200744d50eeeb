import NIOCore

/// Hands each datagram that arrives on a UDP listening socket to the engine.
final class DNSClientDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let engine: DNSForwardingEngine

    init(engine: DNSForwardingEngine) { self.engine = engine }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        engine.handleQuery(envelope.data, from: .datagram(context.channel, envelope.remoteAddress))
    }

    func channelReadComplete(context: ChannelHandlerContext) { engine.flush() }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A datagram socket reports ICMP errors of earlier sends here (a client gone away):
        // nothing to do, and the socket stays open.
    }
}
