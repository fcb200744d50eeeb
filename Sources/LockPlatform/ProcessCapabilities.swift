import Glibc

/// The capabilities this process holds (its effective set, from `/proc/self/status`): running
/// as root is not enough under a hardened unit that bounds them.
public enum ProcessCapabilities {
    /// `CAP_DAC_READ_SEARCH`: reading users' own application directories in their homes.
    public static let dacReadSearch = 2
    /// `CAP_KILL`: signalling other users' processes.
    public static let kill = 5
    /// `CAP_NET_ADMIN`: the proc connector, nftables.
    public static let netAdmin = 12
    /// `CAP_SYS_PTRACE`: reading `/proc/PID/exe` of other users' processes (which program runs).
    public static let sysPtrace = 19
    /// `CAP_SYS_ADMIN`: fanotify permission events.
    public static let sysAdmin = 21

    /// Names of the capabilities in `list` this process lacks (`CAP_KILL`), in order.
    public static func missing(_ list: [Int], status: String = "/proc/self/status") -> [String] {
        let names = [
            dacReadSearch: "CAP_DAC_READ_SEARCH", kill: "CAP_KILL", netAdmin: "CAP_NET_ADMIN", sysPtrace: "CAP_SYS_PTRACE",
            sysAdmin: "CAP_SYS_ADMIN",
        ]
        return list.filter { !has($0, status: status) }.map { names[$0] ?? "capability \($0)" }
    }

    /// True when the effective set holds `capability` (false when it cannot be read).
    public static func has(_ capability: Int, status: String = "/proc/self/status") -> Bool {
        guard let bytes = try? readSmallFile(status, limit: 1 << 20) else { return false }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("CapEff:") {
            let hex = line.dropFirst("CapEff:".count).drop { $0 == " " || $0 == "\t" }
            guard let mask = UInt64(hex, radix: 16) else { return false }
            return mask & (1 << UInt64(capability)) != 0
        }
        return false
    }
}
