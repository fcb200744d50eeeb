import CNFTables
import Synchronization

/// Runs nft scripts in-process through libnftables, the library behind nft(8).
///
/// In-process rather than spawning `nft`: no exec from the daemon (so the service can forbid
/// it), no dependency on a binary's path, the kernel sees the daemon's own PID as the author of
/// each change (which is how the watch tells its own commits from others'), and it is a little
/// faster for small rulesets. Each call uses a fresh context, so no cache from an earlier call
/// can go stale; calls are serialised because libnftables is not documented as thread-safe.
public final class LibNFTables: NFTablesBackend {
    private let lock = Mutex(())
    private let releaseMemory: Bool

    /// Creates the wrapper.
    ///
    /// - Parameter releaseMemory: return freed heap to the system after each call
    ///   (`malloc_trim`), so that building a 100 000-element ruleset does not leave the daemon's
    ///   resident size at its peak.
    public init(releaseMemory: Bool = true, dryRun: Bool = false) {
        self.releaseMemory = releaseMemory
        self.dryRun = dryRun
    }

    /// Checks scripts against the kernel without committing them (the transaction is aborted).
    private let dryRun: Bool

    public func run(_ script: String) throws -> String { try run(script, json: false) }

    /// Runs `script`; with `json`, listings come as libnftables' JSON.
    public func run(_ script: String, json: Bool) throws -> String {
        try lock.withLock { _ in
            guard let context = nft_ctx_new(UInt32(NFT_CTX_DEFAULT)) else {
                throw NFTablesError(message: "cannot create a libnftables context")
            }
            defer {
                nft_ctx_free(context)
                if releaseMemory { malloc_trim(0) }
            }
            if dryRun { nft_ctx_set_dry_run(context, true) }
            if json { nft_ctx_output_set_flags(context, UInt32(NFT_CTX_OUTPUT_JSON)) }
            nft_ctx_buffer_output(context)
            nft_ctx_buffer_error(context)
            let status = nft_run_cmd_from_buffer(context, script)
            let output = nft_ctx_get_output_buffer(context).map { String(cString: $0) } ?? ""
            if status != 0 {
                let error = nft_ctx_get_error_buffer(context).map { String(cString: $0) } ?? ""
                throw NFTablesError(message: Self.shorten(error.isEmpty ? "failed with status \(status)" : error))
            }
            return output
        }
    }

    /// nft echoes the offending input line; with tens of thousands of elements that would flood
    /// the log, so keep the start and the end of the message.
    private static func shorten(_ message: String) -> String {
        let trimmed = message.trimmingTrailingNewlines()
        guard trimmed.utf8.count > 2000 else { return trimmed }
        return String(trimmed.prefix(1000)) + " … " + String(trimmed.suffix(600))
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var copy = self
        while copy.last?.isNewline == true { copy.removeLast() }
        return copy
    }
}
