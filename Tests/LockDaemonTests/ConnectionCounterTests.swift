import Testing

@testable import LockDaemon

/// The pools of `ConnectionCounter`, slot by slot: readers, the admin group and root each have
/// room of their own, and uids that hold nothing yet keep a reserve in every pool.
@Suite("Connection pools")
struct ConnectionCounterTests {
    static let limits = ConnectionLimits()

    /// Takes slots for `uid` until refused (at most `count`); returns how many it got and the refusal.
    func fill(_ counter: ConnectionCounter, uid: UInt32, as caller: ConnectionCaller, count: Int) -> (Int, ConnectionRefusal?) {
        for taken in 0..<count {
            if let refusal = counter.acquire(uid: uid, caller: caller) { return (taken, refusal) }
        }
        return (count, nil)
    }

    @Test func nineReadersWith32EachLeaveRoomForATenthForTheGroupAndForRoot() {
        let counter = ConnectionCounter(limits: Self.limits)
        var held: [Int] = []
        for uid in UInt32(1000)..<1009 { held.append(fill(counter, uid: uid, as: .reader, count: 40).0) }
        #expect(held == [32, 32, 32, 32, 32, 32, 32, 16, 1])
        #expect(counter.open == 241)
        #expect(counter.acquire(uid: 1009, caller: .reader) == nil, "a tenth reader")
        #expect(counter.acquire(uid: 1000, caller: .reader) == .perUser(limit: 32))
        #expect(counter.acquire(uid: 1007, caller: .reader) == .pool(open: 242, caller: .reader))
        let (member, _) = fill(counter, uid: 2000, as: .authorised, count: 40)
        // Its pool's 32 extra places down to the newcomers' reserve: 288 - 242 - 16 = 30.
        #expect(member == 30, "a group member gets room of its own beyond the readers' pool")
        #expect(counter.acquire(uid: 0, caller: .root) == nil)
    }

    @Test func rootIsNeverHeldToAShareAndHasTheLastReserve() {
        let counter = ConnectionCounter(limits: Self.limits)
        for uid in UInt32(1000)..<1020 { _ = fill(counter, uid: uid, as: .reader, count: 40) }
        for uid in UInt32(2000)..<2010 { _ = fill(counter, uid: uid, as: .authorised, count: 40) }
        let everyone = Self.limits.total + Self.limits.authorisedReserve + Self.limits.rootReserve
        let before = counter.open
        #expect(everyone - before >= Self.limits.rootReserve, "others took root's reserve")
        #expect(counter.acquire(uid: 3000, caller: .reader) != nil, "the readers' pool is full")
        let (rootHeld, refusal) = fill(counter, uid: 0, as: .root, count: 100)
        #expect(rootHeld == everyone - before)
        #expect(refusal == .pool(open: counter.open, caller: .root))
    }

    @Test func releasedSlotsComeBack() {
        let counter = ConnectionCounter(limits: Self.limits)
        _ = fill(counter, uid: 1000, as: .reader, count: 32)
        #expect(counter.acquire(uid: 1000, caller: .reader) != nil)
        counter.release(uid: 1000)
        #expect(counter.acquire(uid: 1000, caller: .reader) == nil)
    }

    @Test func refusalsSayWhichLimit() {
        #expect(ConnectionRefusal.perUser(limit: 32).message.contains("from this user (32 at most)"))
        #expect(ConnectionRefusal.pool(open: 256, caller: .reader).message.contains("connections from readers"))
        #expect(ConnectionRefusal.pool(open: 256, caller: .reader).message.contains("group have connections of their own"))
    }

    @Test func limitsFitFewDescriptors() {
        let small = ConnectionLimits.fitting(openFiles: 256)
        #expect(small.total + small.authorisedReserve + small.rootReserve <= (256 - 128) / 2 + 2)
        #expect(small.total >= 2 && small.perUser >= 2 && small.newcomerReserve >= 1)
        let usual = ConnectionLimits.fitting(openFiles: 65_536)
        #expect(usual.total == 256 && usual.perUser == 32 && usual.authorisedReserve == 32 && usual.rootReserve == 16)
    }
}
