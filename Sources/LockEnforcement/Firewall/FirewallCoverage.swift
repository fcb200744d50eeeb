import LockCore

/// What the firewall table in force does for one name: pure, from the desired block, the table
/// last committed (nil when none is in force) and the addresses known for each name.
enum FirewallCoverage {
    /// - Parameter checkInForce: the connection check's tables are in force now, so that TCP the
    ///   table hands over is judged by name (without them the table refuses it itself).
    static func of(
        _ name: String, desired: DesiredBlock?, committed: NFTablesRuleset?, book: ResolvedAddressBook, checkInForce: Bool = false
    ) -> Coverage {
        var exact = name.lowercased()
        if exact.hasSuffix(".") { exact.removeLast() }
        guard let desired, let committed, committed.mode != .off else {
            return .doesNotCover("the firewall table is not in force")
        }
        if let allowOnly = desired.allowOnly {
            if allowOnly.domains.contains(exact) { return .doesNotCover("on the allowlist: its addresses stay reachable") }
            return .blocks("allowlist mode: every address not allowed is refused at the firewall")
        }
        if desired.domains.contains(exact) {
            let addresses = book.addresses(for: CollectionOfOne(exact)).filter { address in
                !NFTablesRuleset.neverBlockedWhenResolved.contains { $0.contains(address) }
            }
            guard !addresses.isEmpty else {
                let failure = book.failures[exact].map { ": \($0)" } ?? ""
                return .doesNotCover("blocked, but no address of \(exact) is known yet\(failure)")
            }
            let shown = addresses.prefix(3).map(\.description).joined(separator: ", ") + (addresses.count > 3 ? ", …" : "")
            let counted = "\(addresses.count) address\(addresses.count == 1 ? "" : "es") of \(exact)"
            if committed.connectionHandoff, checkInForce {
                return .blocks(
                    "\(counted) refused to everything but TCP (\(shown)); TCP to them is judged by the connection check, "
                        + "which lets other sites sharing them through and resets connections naming \(exact) or no name")
            }
            return .blocks("\(counted) refused (\(shown))")
        }
        var parent = Substring(exact)
        while let dot = parent.firstIndex(of: ".") {
            parent = parent[parent.index(after: dot)...]
            if desired.domains.contains(String(parent)) {
                return .doesNotCover("the firewall refuses the addresses \(parent) itself resolves to, not those of names under it")
            }
        }
        return .doesNotCover("none of its addresses is blocked at the firewall")
    }
}
