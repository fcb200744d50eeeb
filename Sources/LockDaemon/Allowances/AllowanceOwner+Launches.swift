import Foundation
import LockCore
import LockEnforcement

// Open limits (`--opens`, `--cooldown`): which apps' launches are counted, and each launch's
// decision, recorded in the ledgers and saved through the session service's one commit path.
extension AllowanceOwner {
    /// Puts the counted apps in force again (a profile's apps changed).
    public func profilesChanged() async { await sessions.reconcile(asking: self) }

    /// The apps of the profiles of allowances with open limits on this machine.
    func countedApps() async -> [CountedApp] {
        var counted: [CountedApp] = []
        for allowance in files.sorted where (allowance.opens != nil || allowance.cooldown != nil) && allowance.target.includesLocal {
            guard let expansion = await profiles.expansion(of: allowance.profile) else { continue }
            counted += expansion.rules.apps.map {
                CountedApp(id: $0.id, name: $0.name, executables: $0.executables, allowances: [allowance.name], strict: allowance.strict)
            }
        }
        return CountedApp.union(counted)
    }

    /// Decides a launch of a counted app: refused when one of the allowances counting it has no
    /// launch left today or is cooling down; otherwise counted in every allowance that applies
    /// today, saved in the same transaction as the rest of the batch, and allowed.
    public func decideLaunch(_ request: LaunchRequest) async {
        guard let verdict = await verdict(for: request.app, claim: request.claim) else { return }
        request.decide(verdict)
    }

    /// The decision on a launch of `app` now, recorded when allowed. `claim` is asked once the
    /// decision is made and before anything is recorded: false (the exec guard answered by its
    /// rule meanwhile) records nothing and returns nil.
    func verdict(for app: CountedApp, claim: () -> Bool) async -> LaunchVerdict? {
        let now = clock()
        let zone = zone()
        var refusal: OpenRefusal?
        var counting: [Allowance] = []
        for name in app.allowances {
            guard let allowance = files.allowances[name], allowance.opens != nil || allowance.cooldown != nil else { continue }
            var ledger = ledgers[name] ?? AllowanceLedger(now: now, in: zone)
            ledger.advance(to: now, in: zone)
            ledgers[name] = ledger
            if let refused = OpenRefusal(ledger.mayOpen(allowance, at: now, in: zone), allowance: allowance, now: now.wall) {
                // No launch left outranks a cooldown: it says when the app comes back for the day.
                if refusal == nil || refused.reason == .noOpensLeft { refusal = refused }
            } else if allowance.applies(on: ledger.day, in: zone) {
                counting.append(allowance)
            }
        }
        // Too late: the guard answered by its rule, and a launch it refused must not be counted.
        guard claim() else { return nil }
        if let refusal {
            logger.info(
                "launch refused by an open limit",
                metadata: ["app": "\(app.id)", "allowance": "\(refusal.allowance)", "reason": "\(refusal.reason.rawValue)"])
            return .refused(refusal)
        }
        for allowance in counting {
            var ledger = ledgers[allowance.name] ?? AllowanceLedger(now: now, in: zone)
            ledger.recordOpen(at: now, in: zone)
            ledgers[allowance.name] = ledger
            unsaved[allowance.name] = ledger
        }
        if !counting.isEmpty {
            let outcome = await sessions.reconcile(asking: self)
            if !outcome.saved {
                logger.error("a launch was counted but could not be saved yet", metadata: ["app": "\(app.id)"])
            }
        }
        return .allowed
    }
}
