import LockCore
import NIOCore
import NIOHTTP1

/// Closes a connection that does not send a complete request in time after it opened or after
/// the previous answer (idle keep-alive connections and slowloris senders alike), or does not
/// take an answer in time. An event stream, once its head is sent, is exempt.
public final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPServerRequestPart
    public typealias InboundOut = HTTPServerRequestPart
    public typealias OutboundIn = HTTPServerResponsePart
    public typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?
    private var streaming = false
    private var uploading = false

    public init(timeout: Duration) {
        self.timeout = .nanoseconds(timeout.nanosecondsClamped)
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .end:
            uploading = false
            disarm()
        case .body where uploading:
            arm(context)
        default: break
        }
        context.fireChannelRead(data)
    }

    /// The request being read streams its body to an authorised caller's handler (a list
    /// import, larger than any request could be in the usual time): from now until its end,
    /// the deadline counts from the last piece received, not from the request's start.
    public func extendWhileUploading() {
        uploading = true
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            streaming = head.headers["Content-Type"].first == "application/x-ndjson"
            if streaming { disarm() } else { arm(context) }
            context.write(data, promise: promise)
        case .end:
            // The next request's time starts once this answer has gone out.
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.whenSuccess { [weak self] in
                guard let self, !self.streaming else { return }
                self.arm(context)
            }
            context.write(data, promise: written)
        case .body:
            context.write(data, promise: promise)
        }
    }

    public func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        let channel = context.channel
        scheduled = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    private func disarm() {
        scheduled?.cancel()
        scheduled = nil
    }
}
