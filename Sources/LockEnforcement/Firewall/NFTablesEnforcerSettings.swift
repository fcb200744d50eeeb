extension NFTablesEnforcer {
    /// Tunables of the nftables enforcer; the defaults suit the daemon.
    public struct Settings: Sendable, Equatable {
        /// The table's name in family `inet`.
        public var table: String
        /// How often names are resolved again while a block is active (CDNs rotate addresses).
        public var reresolveInterval: Duration
        /// How soon to try again while some names could not be resolved (at boot the block is
        /// put in place before the network is up, so the first resolution usually fails).
        public var failureRetryInterval: Duration
        /// How long an address stays blocked after the last resolution that returned it, so
        /// that clients still using a cached older answer stay blocked.
        public var grace: Duration
        /// Pause after a detected outside change before restoring, so one burst of changes
        /// (a firewall reload) causes one restore.
        public var restoreDelay: Duration
        /// Interval of the fallback check when change notifications are unavailable.
        public var generationPollInterval: Duration
        /// Use the fallback check even when notifications are available (for kernels or
        /// sandboxes where the subscription succeeds but notifications never arrive, and to
        /// test the fallback).
        public var forceGenerationPolling: Bool
        /// Count connection attempts to blocked addresses per name (named counters), when
        /// the enforcer has somewhere to report them.
        public var countAttempts: Bool
        /// The NFLOG group real-time attempt events come from; nil for counters alone.
        public var logGroup: UInt16?
        /// How often the counters are read.
        public var counterInterval: Duration

        /// Creates settings.
        public init(
            table: String = NFTablesRuleset.defaultTable,
            reresolveInterval: Duration = .seconds(300),
            failureRetryInterval: Duration = .seconds(15),
            grace: Duration = .seconds(3600),
            restoreDelay: Duration = .milliseconds(50),
            generationPollInterval: Duration = .seconds(1),
            forceGenerationPolling: Bool = false,
            countAttempts: Bool = true,
            logGroup: UInt16? = NFTablesEnforcer.defaultLogGroup,
            counterInterval: Duration = .seconds(60)
        ) {
            self.table = table
            self.reresolveInterval = reresolveInterval
            self.failureRetryInterval = failureRetryInterval
            self.grace = grace
            self.restoreDelay = restoreDelay
            self.generationPollInterval = generationPollInterval
            self.forceGenerationPolling = forceGenerationPolling
            self.countAttempts = countAttempts
            self.logGroup = logGroup
            self.counterInterval = counterInterval
        }
    }
}
