import Foundation
import LockProtocol
import Testing

@testable import LockCommands

/// What `lockctl allowances list` and `lockctl status` say about launches.
@Suite struct AllowanceLinesTests {
    let resets = Date(timeIntervalSince1970: 1_800_000_000)

    func allowance(opens: Int?, today: Int, cooldown: Double? = nil, waiting: Double? = nil) -> TimeAllowanceInfo {
        TimeAllowanceInfo(
            name: "gaming", profile: "games", dailySeconds: nil, weeklySeconds: nil, days: "all", warnSeconds: nil, strict: false,
            target: ["local"], opens: opens, cooldownSeconds: cooldown, usedTodaySeconds: 0, usedThisWeekSeconds: 0, leftSeconds: nil,
            resetsAt: resets, opensToday: today, opensLeft: opens.map { max(0, $0 - today) }, cooldownLeftSeconds: waiting,
            blocking: false, inUse: false)
    }

    @Test func listShowsLaunchesUsedAndTheCooldownLeft() {
        #expect(AllowancesCommand.opens(allowance(opens: 3, today: 1, cooldown: 3600, waiting: 2520)) == "1 of 3 used, 42m cooldown")
        #expect(AllowancesCommand.opens(allowance(opens: nil, today: 0, cooldown: 600)) == nil)
        #expect(AllowancesCommand.summary(allowance(opens: 3, today: 0, cooldown: 3600)) == "3 opens, 1h apart")
    }

    @Test func statusShowsLaunchesLeftOnlyOnceSomeAreUsed() {
        #expect(AllowancesCommand.statusLines([allowance(opens: 3, today: 0)]).isEmpty)
        #expect(AllowancesCommand.statusLines([allowance(opens: 3, today: 1)]) == ["gaming 2 of 3 launches left"])
        #expect(
            AllowancesCommand.statusLines([allowance(opens: 3, today: 3)])
                == ["gaming no launches left until \(TextFormat.clock(resets))"])
        #expect(
            AllowancesCommand.statusLines([allowance(opens: nil, today: 1, cooldown: 3600, waiting: 2520)])
                == ["gaming cooling down, 42m left"])
    }
}
