import NIOCore

/// The accept loop of the daemon's control server and the UI's server: every connection a
/// listener accepts is served in a task of its own, until the listener closes.
public enum AcceptLoop {
    public static func run<Connection: Sendable>(
        _ listener: NIOAsyncChannel<Connection, Never>, serve: @escaping @Sendable (Connection) async -> Void
    ) async throws {
        try await withThrowingDiscardingTaskGroup { connections in
            try await listener.executeThenClose { inbound in
                for try await connection in inbound {
                    connections.addTask { await serve(connection) }
                }
            }
        }
    }
}
