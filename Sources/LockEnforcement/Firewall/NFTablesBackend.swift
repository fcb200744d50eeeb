/// Something that runs nft scripts: libnftables in the daemon, a recorder in tests.
///
/// Calls may block for as long as the kernel needs (about a second for 100 000 elements);
/// the enforcer makes them from a dedicated queue, one at a time.
public protocol NFTablesBackend: Sendable {
    /// Runs a script (nft(8) syntax) as one transaction and returns what nft printed.
    ///
    /// - Throws: `NFTablesError` with nft's message if the script was rejected; nothing of it
    ///   is then in force.
    func run(_ script: String) throws -> String
}

extension NFTablesBackend {
    /// Runs a listing command (`list …`) and returns nft's JSON output. Backends that do not
    /// talk to a kernel have nothing to list.
    public func listJSON(_ command: String) throws -> String {
        guard let library = self as? LibNFTables else { throw NFTablesError(message: "no JSON listing from this backend") }
        return try library.run(command, json: true)
    }
}
