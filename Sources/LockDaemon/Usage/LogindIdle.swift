import CSystemd
import Glibc

/// Whether the user is at the machine, from logind on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`
/// when set): its manager's `IdleHint`, true when every session is idle. With no bus, no
/// logind or no session at all (a headless machine, a script run from cron), there is nothing
/// to consult: `nil`, and running apps count as in use.
struct LogindIdle: Sendable {
    /// How long a question may take; the meter asks at most once per sample.
    var timeout: UInt64 = 500_000

    /// True when idle, false when someone is active, nil when it cannot be known.
    func isIdle() -> Bool? {
        var bus: OpaquePointer?
        guard sd_bus_open_system(&bus) >= 0, let bus else { return nil }
        defer { sd_bus_flush_close_unref(bus) }
        guard hasSessions(bus) else { return nil }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var idle: Int32 = 0
        let result = sd_bus_get_property_trivial(
            bus, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "IdleHint", &error,
            CChar(UInt8(ascii: "b")), &idle)
        return result >= 0 ? idle != 0 : nil
    }

    /// Whether logind answers and lists at least one session (with none, its `IdleHint` says
    /// idle, which would hide every script's and service's use).
    private func hasSessions(_ bus: OpaquePointer) -> Bool {
        var message: OpaquePointer?
        guard
            sd_bus_message_new_method_call(
                bus, &message, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "ListSessions")
                >= 0, let call = message
        else { return false }
        defer { sd_bus_message_unref(call) }
        sd_bus_message_set_auto_start(call, 0)
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        guard sd_bus_call(bus, call, timeout, &error, &reply) >= 0, let reply else { return false }
        defer { sd_bus_message_unref(reply) }
        guard sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "a")), "(susso)") > 0 else { return false }
        return sd_bus_message_at_end(reply, 0) == 0
    }
}
