import Foundation
import Glibc

/// The machine's time zone, read afresh each time it is asked for, because schedules without
/// a zone of their own must follow it when it changes (`timedatectl set-timezone` replaces the
/// `/etc/localtime` link) while the daemon runs.
public enum SystemTimeZone {
    /// The zone in force: `$TZ` if set (as glibc does), else the target of
    /// `ROOT/etc/localtime` (`…/zoneinfo/Europe/Berlin`), else the name in `ROOT/etc/timezone`,
    /// else Foundation's idea of the system zone.
    public static func current(root: String = "/") -> TimeZone {
        if let name = ProcessInfo.processInfo.environment["TZ"], let zone = zone(named: name) { return zone }
        if let name = linkedName(root: root), let zone = TimeZone(identifier: name) { return zone }
        if let text = try? String(contentsOfFile: localtimeDirectory(root) + "/timezone", encoding: .utf8),
            let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return zone
        }
        // Foundation caches the system zone; it must look again when the link changed.
        NSTimeZone.resetSystemTimeZone()
        return TimeZone.current
    }

    /// The file whose replacement means the zone changed.
    public static func localtimePath(root: String = "/") -> String { localtimeDirectory(root) + "/localtime" }

    private static func localtimeDirectory(_ root: String) -> String {
        (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/etc"
    }

    /// The zone name that `/etc/localtime` links to, if it is a link into a zoneinfo tree.
    private static func linkedName(root: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(localtimePath(root: root), &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let target = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let range = target.range(of: "zoneinfo/", options: .backwards) else { return nil }
        let name = String(target[range.upperBound...])
        // `posix/` and `right/` trees hold the same zones under the same names.
        for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { return String(name.dropFirst(prefix.count)) }
        return name
    }

    /// A `TZ` value as a zone: `Europe/Berlin`, `:Europe/Berlin`, or `UTC`.
    private static func zone(named value: String) -> TimeZone? {
        let name = value.hasPrefix(":") ? String(value.dropFirst()) : value
        guard !name.isEmpty else { return nil }
        return TimeZone(identifier: name)
    }
}
