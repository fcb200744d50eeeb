import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers every request with a small JSON body.
final class Responder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let body = context.channel.allocator.buffer(string: #"{"sessions":[]}"# + "\n")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/nio-baseline.sock"
let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(Responder())
        }
    }
    .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
try channel.closeFuture.wait()
