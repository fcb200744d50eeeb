import Foundation
import LockCore
import LockDaemon
import LockEnforcement
import LockNames
import LockPlatform
import LockStore
import Logging
import Synchronization
import Testing

/// A temporary directory with the shipped data and empty state, removed at the end.
final class Scratch: @unchecked Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "simplylock-unit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path + "/etc", withIntermediateDirectories: true)
    }

    var paths: Paths {
        Paths(root: path, dataDirectory: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config").standardized.path)
    }

    func write(_ relative: String, _ text: String) throws {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    }

    func read(_ relative: String) -> String? { try? String(contentsOfFile: path + "/" + relative, encoding: .utf8) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let state: Mutex<ClockReading>

    init(boot: Double = 1000, wall: Double = 1_800_000_000, bootID: String = "boot-1") {
        state = Mutex(ClockReading(wall: Date(timeIntervalSince1970: wall), boot: BootTime(seconds: boot), bootID: bootID))
    }

    func now() -> ClockReading { state.withLock { $0 } }

    /// Moves both clocks forward, as real time passing does.
    func advance(_ seconds: Double) {
        state.withLock {
            $0.boot = $0.boot + .seconds(seconds)
            $0.wall = $0.wall.addingTimeInterval(seconds)
        }
    }

    /// Moves only the wall clock, as a user changing the time does.
    func setWall(by seconds: Double) { state.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) } }

    /// A reboot: a new boot id and a boot clock starting near zero, after `offSeconds` off.
    func reboot(offSeconds: Double, bootID: String) {
        state.withLock {
            $0.wall = $0.wall.addingTimeInterval(offSeconds)
            $0.boot = BootTime(seconds: 3)
            $0.bootID = bootID
        }
    }
}

/// Remembers the deadlines a manager arms.
final class RecordingTimer: @unchecked Sendable {
    private let lock = NSLock()
    private var deadlines: [BootTime?] = []
    func arm(at deadline: BootTime?) { lock.lock(); deadlines.append(deadline); lock.unlock() }
    var last: BootTime?? { lock.lock(); defer { lock.unlock() }; return deadlines.last }
}

/// Hands out 1, 2, 3, … for test identifiers.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

/// A BlockManager over `scratch` as the daemon builds one at start-up: profiles loaded, saved
/// sessions restored. Calling it again over the same store is a restart.
func makeBlockManager(scratch: Scratch, store: StateStore, clock: ManualClock, enforcer: FakeEnforcer,
                      configuration: DaemonConfiguration = DaemonConfiguration(), events: EventBus = EventBus(),
                      counter: Counter = Counter()) async throws -> BlockManager {
    var profiles = ProfileStore(paths: scratch.paths, names: testNames)
    #expect(profiles.reload().isEmpty)
    let manager = BlockManager(profiles: profiles, configuration: configuration, store: store, enforcers: [enforcer],
                               events: events, logger: Logger(label: "test"), clock: { clock.now() },
                               makeID: { "s\(counter.next())" })
    try await manager.restore()
    return manager
}

/// The domain name parser as the daemon builds it, with the machine's public suffix list.
let testNames = DomainNameParser.system().parser
