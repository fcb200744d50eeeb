import LockPlatform

/// A file watch and the stream of its changes, like `TimerFeed`.
struct FileChangeFeed: Sendable {
    /// The watch; nil when the file could not be watched.
    let watcher: FileWatcher?
    /// One element per batch of changes.
    let changes: AsyncStream<Void>
    /// Why the file is not watched, when it is not.
    let problem: String?

    init(path: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        do {
            watcher = try FileWatcher(path: path) { continuation.yield() }
            problem = nil
        } catch {
            watcher = nil
            problem = "\(error)"
            continuation.finish()
        }
    }
}
