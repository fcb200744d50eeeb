import CICUShim
import Crypto
import Foundation
import GRDB
import TOMLKit
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers every request with a small JSON body, encoded by Foundation as the daemon does.
final class Responder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        struct Status: Encodable { var sessions: [String] = []; var now = Date() }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let body = context.channel.allocator.buffer(bytes: (try? encoder.encode(Status())) ?? Data())
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/nio-stack-baseline.sock"
// What the daemon does with each library at start-up, in miniature: its state in SQLite, a
// profile in TOML, a SHA-256, a name through ICU's UTS 46.
let database = try DatabaseQueue(path: path + ".sqlite")
try database.write { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, rules BLOB)")
    try db.execute(sql: "INSERT OR REPLACE INTO session VALUES ('a', x'00')")
}
let table = try TOMLTable(string: "name = \"focus\"\ndomains = [\"reddit.com\"]\n")
let digest = SHA256.hash(data: Data((table["name"]?.string ?? "").utf8))
let converted = icu_shim_open()
print("ready", digest.description.prefix(8), converted)

let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(Responder())
        }
    }
    .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
try channel.closeFuture.wait()
