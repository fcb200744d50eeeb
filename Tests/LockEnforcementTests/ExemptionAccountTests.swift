import Foundation
import Testing

@testable import LockEnforcement

/// The kernel's count of port-53 traffic carrying the exemption mark against the daemon's own.
struct ExemptionAccountTests {
    private let start = ContinuousClock.now

    private func reading(_ datagrams: UInt64, _ connections: UInt64 = 0, identity: [Int] = [3, 4]) -> ExemptionAccount.Reading {
        ExemptionAccount.Reading(traffic: ExemptedTraffic(datagrams: datagrams, connections: connections), identity: identity)
    }

    private func daemon(_ datagrams: UInt64, _ connections: UInt64 = 0) -> ExemptedTraffic {
        ExemptedTraffic(datagrams: datagrams, connections: connections)
    }

    @Test func theDaemonsOwnTrafficIsNoBorrowing() {
        var account = ExemptionAccount()
        account.observe(kernel: reading(500, 2), daemon: daemon(10), at: start)  // a table of an earlier daemon: taken as it is
        account.observe(kernel: reading(600, 3), daemon: daemon(110, 1), at: start + .seconds(5))
        // Counted by the daemon, not yet by the kernel (in flight): fine, and still fine when it arrives.
        account.observe(kernel: reading(600, 3), daemon: daemon(115, 1), at: start + .seconds(5.5))
        account.observe(kernel: reading(605, 3), daemon: daemon(115, 1), at: start + .seconds(6))
        #expect(account.finding == nil)
        #expect(account.borrowed == ExemptedTraffic())
    }

    @Test func oneDatagramOfAnotherSocketIsSeenAndStaysSeen() throws {
        var account = ExemptionAccount()
        account.observe(kernel: reading(0), daemon: daemon(0), at: start)
        account.observe(kernel: reading(41), daemon: daemon(40), at: start + .seconds(5))
        #expect(account.borrowed == ExemptedTraffic(datagrams: 1))
        let finding = try #require(account.finding)
        #expect(finding.hasPrefix("1 UDP datagram to port 53 carried the daemon's exemption mark without being the daemon's"), "\(finding)")
        // Nothing more borrowed: still reported while the counters exist.
        account.observe(kernel: reading(50), daemon: daemon(49), at: start + .seconds(40))
        #expect(account.borrowed == ExemptedTraffic(datagrams: 1))
        // A TCP connection is counted apart from datagrams.
        account.observe(kernel: reading(50, 1), daemon: daemon(49, 0), at: start + .seconds(41))
        #expect(account.finding?.hasPrefix("1 UDP datagram and 1 TCP connection to port 53") == true, "\(account.finding ?? "")")
        // The redirect goes (the block ended): the counters go, and with them what they said.
        account.observe(kernel: nil, daemon: daemon(60), at: start + .seconds(50))
        #expect(account.finding == nil)
    }

    @Test func creditForFailedSendsDoesNotLast() {
        var account = ExemptionAccount()
        account.observe(kernel: reading(0), daemon: daemon(0), at: start)
        // 20 sends counted that never reached the hook (no route): credit, for a moment.
        account.observe(kernel: reading(0), daemon: daemon(20), at: start + .seconds(1))
        account.observe(kernel: reading(5), daemon: daemon(20), at: start + .seconds(1.5))
        #expect(account.finding == nil, "sends in flight arrive later")
        // Long after, the old credit cannot hide a borrower's datagrams.
        account.observe(kernel: reading(5), daemon: daemon(20), at: start + .seconds(10))
        account.observe(kernel: reading(8), daemon: daemon(20), at: start + .seconds(20))
        #expect(account.borrowed == ExemptedTraffic(datagrams: 3))
    }

    @Test func aNewTablesGuessAtWhatWasInFlightDoesNotLast() {
        var account = ExemptionAccount()
        account.observe(kernel: nil, daemon: daemon(100), at: start)
        // The counters appear while the daemon is busy: its last 2 s of sends may be in flight.
        account.observe(kernel: reading(0), daemon: daemon(127), at: start + .seconds(1))
        // Busy all along, every send counted by the kernel as it goes.
        var sent: UInt64 = 127
        var counted: UInt64 = 0
        for second in 2...10 {
            sent += 50
            counted += 50
            account.observe(kernel: reading(counted), daemon: daemon(sent), at: start + .seconds(second))
        }
        #expect(account.finding == nil)
        // One datagram of another socket, with the daemon as busy as before: seen.
        account.observe(kernel: reading(counted + 51), daemon: daemon(sent + 50), at: start + .seconds(11))
        #expect(account.borrowed == ExemptedTraffic(datagrams: 1))
    }

    @Test func aResetCounterIsReportedANewOneIsNot() {
        var account = ExemptionAccount()
        account.observe(kernel: reading(100), daemon: daemon(0), at: start)
        // The table recreated (a restore, a new block): new handles, new count from zero.
        account.observe(kernel: reading(2, identity: [7, 8]), daemon: daemon(2), at: start + .seconds(5))
        #expect(account.finding == nil)
        // Reset from outside (`nft reset counters`): same handles, lower count.
        account.observe(kernel: reading(0, identity: [7, 8]), daemon: daemon(3), at: start + .seconds(10))
        #expect(account.counterReset)
        #expect(account.finding?.contains("reset from outside") == true)
    }
}
