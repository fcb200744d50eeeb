import Foundation
import LockCore
import LockEnforcement
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// `[insights] retention` reaches the retention loop from the configuration the Coordinator
/// reads; the loop never reads the configuration itself.
@Suite("The retention loop is handed its setting at each reload")
struct RetentionSettingTests {
    @Test func reloadHandsTheNewRetentionToTheLoop() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        let store = try StateStore(path: scratch.paths.stateDatabase)
        let daemon = try await TestDaemon.start(
            scratch: scratch, store: store, clock: ManualClock(), enforcers: [FakeEnforcer()], configuration: DaemonConfiguration())
        let setting = RetentionSetting(.seconds(365 * 86_400))
        await daemon.core.coordinator.setRetention(setting)

        try scratch.write("etc/simplylock/simplylockd.toml", "[insights]\nretention = \"30d\"\n")
        let reload = try await daemon.api.reload()
        #expect(reload.problems.isEmpty, "\(reload.problems)")
        #expect(await setting.keep == .seconds(30 * 86_400))
    }
}
