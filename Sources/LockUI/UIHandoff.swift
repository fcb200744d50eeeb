import Foundation
import Glibc
import LockServing
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The running UI server's answer to a later `lockctl ui` (see `UIInstance`): on its socket, a
/// line `open` or `url` gets a new one-time address as one JSON line, opened in the browser
/// first for `open`. Only the server's own user is answered; one caller at a time.
final class UIHandoff: Service {
    typealias Caller = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Largest answer a caller reads.
    static let maxReplyBytes = 4096
    /// A caller must send its line within this.
    static let requestTimeout: TimeAmount = .seconds(2)

    private let listener: NIOAsyncChannel<Caller, Never>
    private let path: String
    private let gate: Gate
    private let port: Int
    private let logger: Logger
    /// Redirect files of the browsers opened here, removed at exit.
    private let opened = OpenedPages()

    private init(listener: NIOAsyncChannel<Caller, Never>, path: String, gate: Gate, port: Int, logger: Logger) {
        self.listener = listener
        self.path = path
        self.gate = gate
        self.port = port
        self.logger = logger
    }

    /// Binds the instance's socket; the caller holds its lock, so a socket file there is stale.
    static func bind(_ instance: UIInstance, gate: Gate, port: Int, logger: Logger) async throws -> UIHandoff {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: instance.socketPath, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    channel.eventLoop.scheduleTask(in: Self.requestTimeout) { channel.close(promise: nil) }
                    return try Caller(wrappingChannelSynchronously: channel)
                }
            }
        chmod(instance.socketPath, 0o600)
        return UIHandoff(listener: listener, path: instance.socketPath, gate: gate, port: port, logger: logger)
    }

    func run() async throws {
        defer {
            unlink(path)
            opened.removeAll()
        }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await self.listener.executeThenClose { callers in
                    for try await caller in callers { await self.answer(caller) }
                }
            }
            group.addTask {
                try? await gracefulShutdown()
                try? await self.listener.channel.close()
            }
        }
    }

    private func answer(_ caller: Caller) async {
        guard await PeerCredentials.read(from: caller.channel).uid == getuid() else {
            logger.warning("a caller of another user on the UI's socket was refused")
            try? await caller.channel.close()
            return
        }
        do {
            try await caller.executeThenClose { inbound, outbound in
                var line = ByteBuffer()
                for try await var chunk in inbound {
                    line.writeBuffer(&chunk)
                    if line.readableBytesView.contains(UInt8(ascii: "\n")) || line.readableBytes > 64 { break }
                }
                let request = String(buffer: line).trimmingCharacters(in: .whitespacesAndNewlines)
                guard request == "open" || request == "url" else { return }
                let url = "http://127.0.0.1:\(port)/?token=\(gate.issueToken())"
                var page: String?
                if request == "open" { page = await Self.openInBrowser(url) }
                if let page { opened.add(page) }
                let reply = UIInstance.Reply(url: url, port: port, opened: page != nil)
                var bytes = try JSONEncoder().encode(reply)
                bytes.append(UInt8(ascii: "\n"))
                try await outbound.write(ByteBuffer(bytes: bytes))
                logger.info("reused", metadata: ["opened": "\(page != nil)"])
            }
        } catch {
            logger.debug("handoff ended", metadata: ["error": "\(error)"])
        }
    }

    /// Runs the opener off the event loops: it waits for `xdg-open`.
    private static func openInBrowser(_ url: String) async -> String? {
        (try? await NIOThreadPool.singleton.runIfActive { Browser.open(url) }) ?? nil
    }
}

/// Redirect files of opened pages (`Browser.open`), removed when the server stops.
final class OpenedPages: Sendable {
    private let pages = Mutex<[String]>([])

    func add(_ page: String) { pages.withLock { $0.append(page) } }

    func removeAll() {
        for page in pages.withLock({ $0 }) { unlink(page) }
    }
}
