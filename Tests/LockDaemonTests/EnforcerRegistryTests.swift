import Foundation
import LockCore
import LockEnforcement
import LockStore
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import LockDaemon

/// Each enforcer is described once (`EnforcerKind`) and built once (`EnforcerRegistration`), and
/// its long-running work is a Service that shutdown stops, in reverse order.
@Suite("Enforcer registry and lifecycle")
struct EnforcerRegistryTests {
    @Test func everyKindHasOneRegistrationAndTheConfigurationKnowsThemAll() {
        #expect(EnforcerRegistration.all.map(\.kind) == EnforcerKind.all)
        #expect(DaemonConfiguration.knownEnforcers == Set(EnforcerKind.all.map(\.name)))
        #expect(Set(EnforcerKind.all.map(\.name)).count == EnforcerKind.all.count)
        // Only the LAN enforcers let a block target other devices, and only they say how.
        for kind in EnforcerKind.all { #expect((kind.lanReach != nil) == kind.covers.contains(.lanTargets), "\(kind)") }
    }

    @Test func theFactoryBuildsWhatIsNamedInApplyOrder() throws {
        let scratch = try Scratch()
        let factory = EnforcerFactory(
            paths: scratch.paths, configuration: DaemonConfiguration(), logger: Logger(label: "test"),
            attempts: AttemptInbox(clock: { ManualClock().now() }))
        let built = factory.build(override: ["dnsmasq", "hosts"])
        #expect(built.enforcers.map(\.name) == ["dnsmasq", "hosts"])
        #expect(built.problems.isEmpty)
        // Under a scratch root the machine-wide ones stay out of the default set.
        let defaults = factory.build(override: nil)
        #expect(defaults.enforcers.map(\.name) == ["hosts"])
        #expect(defaults.decisions.filter { !$0.used }.map(\.name) == ["dns", "connections", "nftables", "apps"])
        let unknown = factory.build(override: ["hosts", "carrier-pigeon"])
        #expect(unknown.problems == ["unknown enforcer carrier-pigeon"])
    }

    @Test func shutdownEndsEachWatchThenStopsEachEnforcerInReverseOrder() async throws {
        let log = EventLog()
        let enforcers = ["hosts", "dns", "nftables"].map { LifecycleEnforcer(name: $0, log: log) }
        let group = ServiceGroup(
            configuration: .init(
                services: enforcers.map { .init(service: EnforcerService(enforcer: $0)) }, gracefulShutdownSignals: [],
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while log.entries.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(10)) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let events = log.entries.withLock { $0 }
        #expect(Set(events.prefix(3)) == ["hosts watching", "dns watching", "nftables watching"])
        #expect(Array(events.dropFirst(3)) == ["nftables stopped", "dns stopped", "hosts stopped"])
    }
}

/// Records when its watch runs and when it is stopped.
private final class LifecycleEnforcer: Enforcer, @unchecked Sendable {
    let name: String
    let log: EventLog

    init(name: String, log: EventLog) {
        self.name = name
        self.log = log
    }

    func apply(_ desired: DesiredBlock) async throws {}

    func watch() async {
        log.entries.withLock { $0.append("\(name) watching") }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    func shutdown() async { log.entries.withLock { $0.append("\(name) stopped") } }

    func status() async -> EnforcerStatus {
        EnforcerStatus(name: name, applied: true, elements: 0, lastApplied: nil, lastError: nil)
    }
}

/// What the enforcers did, in order.
private final class EventLog: Sendable {
    let entries = Mutex<[String]>([])
}
