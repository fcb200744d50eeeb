import Foundation
import LockCore
import LockStore
import Logging

/// Where meters report: their samples become attributed minutes (`MinuteAttributor`), saved
/// when each minute closes, and the time each item was in use goes on to whoever listens for
/// it (the allowances).
public actor UsageRecorder {
    private let store: StateStore
    private let logger: Logger
    private var attributor = MinuteAttributor()
    private var listeners: [@Sendable ([UsageItem: Duration], ClockReading) async -> Void] = []

    /// A recorder saving to `store`.
    public init(store: StateStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Calls `listener` with every report's time in use per item, in order.
    public func listen(_ listener: @escaping @Sendable ([UsageItem: Duration], ClockReading) async -> Void) {
        listeners.append(listener)
    }

    /// Takes one meter report: `samples` placed on the wall clock, `inUse` measured on the boot
    /// clock, both as of `now`.
    public func report(_ samples: [UsageSample], inUse: [UsageItem: Duration], at now: ClockReading) async {
        for sample in samples { attributor.add(sample) }
        // Two minutes late: a sample reaches back at most one sampling interval (a minute), so a
        // minute is complete when it is closed.
        save(attributor.close(before: UsageMinute.index(of: now.wall) - 2))
        guard !inUse.isEmpty else { return }
        for listener in listeners { await listener(inUse, now) }
    }

    /// Takes a network meter's report: each named item's time in use in the stretch ending at `now`.
    public func report(_ inUse: [String: Duration], kind: UsageItem.Kind, meter: UsageMeter, at now: ClockReading) async {
        let items = Dictionary(uniqueKeysWithValues: inUse.filter { $0.value > .zero }.map { (UsageItem(kind, $0.key), $0.value) })
        guard !items.isEmpty else { return }
        let samples = items.map { UsageSample(item: $0.key, meter: meter, end: now.wall, seconds: $0.value.seconds) }
        await report(samples, inUse: items, at: now)
    }

    /// Saves every pending minute, finished or not (at shutdown).
    public func flush() { save(attributor.closeAll()) }

    private func save(_ minutes: [UsageMinute]) {
        guard !minutes.isEmpty else { return }
        do { try store.recordUsage(minutes) } catch {
            logger.error("cannot save usage", metadata: ["minutes": "\(minutes.count)", "error": "\(error)"])
        }
    }
}
