/// What a change to a profile takes away from a block: the refusals of "only stricter edits
/// while locked". Each item is a phrase for a message (`unblocks reddit.com`).
///
/// New kinds of rules (apps, imported lists) add their comparisons to `BlockRules.weakenings`
/// or `Profile.weakenings`; everything that compares old and new profiles goes through here.
extension BlockRules {
    /// What `new` lets through that these rules blocked; empty when it is at least as strict.
    public func weakenings(to new: BlockRules) -> [String] {
        guard mode == new.mode else { return ["changes the mode from \(mode.rawValue) to \(new.mode.rawValue)"] }
        var found: [String] = []
        switch mode {
        case .blocklist:
            // Every name these rules blocked by a rule or an exception's parent must stay blocked.
            let candidates = block.sorted + new.allow.sorted.filter { !allow.containsExactly($0) }
            for name in candidates where blockingRule(for: name) != nil && new.blockingRule(for: name) == nil {
                found.append(new.allow.containsExactly(name) && !allow.containsExactly(name) ? "allows \(name)" : "unblocks \(name)")
            }
            for address in addresses where !new.addresses.contains(where: { $0.contains(address) }) {
                found.append("unblocks \(address)")
            }
            // A list counts by name: a newer version of it is no weakening (a strict block
            // keeps the older one's names until it ends).
            let newLists = Set(new.lists.map(\.name))
            for list in Set(lists.map(\.name)).sorted() where !newLists.contains(list) {
                found.append("unblocks list \(list)")
            }
        case .allowlist:
            break
        }
        // Path rules stay blocked when a new rule or exception no longer covers them.
        for rule in paths
        where PathRule.blockingRule(host: rule.host.value, path: rule.path, block: new.paths, allow: new.allowPaths) == nil {
            found.append("unblocks path \(rule)")
        }
        for keyword in keywords where !new.keywords.contains(keyword) {
            found.append("unblocks keyword \(keyword)")
        }
        // Apps are blocked in both modes.
        let newApps = Set(new.apps.map(\.id))
        for app in apps where !newApps.contains(app.id) {
            found.append("unblocks app \(app.id)")
        }
        switch mode {
        case .blocklist:
            break
        case .allowlist:
            for name in new.block.sorted where block.match(name) == nil {
                found.append("allows \(name)")
            }
            for address in new.addresses where !addresses.contains(where: { $0.contains(address) }) {
                found.append("allows \(address)")
            }
        }
        return found
    }
}

extension Profile {
    /// What changing this profile into `new` (with the rules each expands to) would take away
    /// from a strict block of it.
    public func weakenings(to new: Profile, rules old: BlockRules, newRules: BlockRules) -> [String] {
        var found = old.weakenings(to: newRules)
        // A category also blocks apps installed later, so removing one weakens even when no
        // installed app is in it now.
        for category in appCategories where !new.appCategories.contains(category) {
            found.append("unblocks app category \(category)")
        }
        if strict, !new.strict { found.append("turns strict off") }
        return found
    }
}
