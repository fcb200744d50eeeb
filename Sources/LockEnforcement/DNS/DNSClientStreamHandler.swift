import NIOCore

/// One client TCP connection: each framed query goes to the engine; answers are written back
/// framed, in the order they are ready (RFC 7766 allows out of order). Idle connections and
/// connections beyond the limit are closed.
final class DNSClientStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let engine: DNSForwardingEngine
    private var counted = false

    init(engine: DNSForwardingEngine) { self.engine = engine }

    func channelActive(context: ChannelHandlerContext) {
        counted = engine.tcpConnectionOpened()
        if !counted { context.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted { engine.tcpConnectionClosed() }
        counted = false
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        engine.handleQuery(Self.unwrapInboundIn(data), from: .stream(context.channel))
    }

    func channelReadComplete(context: ChannelHandlerContext) { engine.flush() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
