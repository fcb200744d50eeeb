import CSystemd
import Glibc

/// systemd-resolved's cache, flushed through D-Bus (`org.freedesktop.resolve1.Manager.FlushCaches`,
/// what `resolvectl flush-caches` calls) with libsystemd's sd-bus. A bus without resolved on it
/// is "not running", not a failure; resolved is never started for this (no auto-start).
struct SystemdResolvedCache: ResolverCache {
    let name = "systemd-resolved"
    /// The bus to call, `unix:path=…`; nil for the system bus.
    var busAddress: String?
    /// How long the call may take.
    var timeout: Duration = .milliseconds(500)

    func flush() -> ResolverCacheOutcome {
        var bus: OpaquePointer?
        var result: Int32
        if let busAddress {
            result = sd_bus_new(&bus)
            if result >= 0 { result = sd_bus_set_address(bus, busAddress) }
            if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
            if result >= 0 { result = sd_bus_start(bus) }
        } else {
            result = sd_bus_open_system(&bus)
        }
        defer { sd_bus_flush_close_unref(bus) }
        guard result >= 0 else {
            // No bus at all (a container, a minimal system): resolved cannot run either.
            if -result == ENOENT || -result == ECONNREFUSED { return .notRunning("no D-Bus system bus") }
            return .failed("cannot connect to D-Bus: \(String(cString: strerror(-result)))")
        }
        var message: OpaquePointer?
        result = sd_bus_message_new_method_call(
            bus, &message, "org.freedesktop.resolve1", "/org/freedesktop/resolve1",
            "org.freedesktop.resolve1.Manager", "FlushCaches")
        defer { sd_bus_message_unref(message) }
        guard result >= 0, let call = message else {
            return .failed("cannot build the D-Bus call: \(String(cString: strerror(-result)))")
        }
        sd_bus_message_set_auto_start(call, 0)
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let microseconds = UInt64(max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000))
        result = sd_bus_call(bus, call, microseconds, &error, &reply)
        sd_bus_message_unref(reply)
        guard result < 0 else { return .flushed }
        let errorName = error.name.map { String(cString: $0) } ?? ""
        if errorName == "org.freedesktop.DBus.Error.ServiceUnknown" || errorName == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return .notRunning("systemd-resolved is not on the bus")
        }
        let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-result))
        return .failed("FlushCaches: \(errorName.isEmpty ? "" : errorName + ": ")\(text)")
    }
}
