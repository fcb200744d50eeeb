import Foundation
import Glibc

/// Raises freedesktop notifications (`org.freedesktop.Notifications.Notify`) on the session bus,
/// through libsystemd's sd-bus.
///
/// libsystemd is opened with dlopen by `lockctl notify` only: linking it would load it, and the
/// six libraries it needs (libgcrypt, liblzma, libzstd, liblz4, libcap, libgpg-error), into every
/// lockctl command, which must start as cheaply as a bare program (measured: about +0.6 ms of CPU
/// and +1.2 MB of memory for each process of an empty C program linked with it). sd-bus rather
/// than a hand-written D-Bus client: the authentication, marshalling and reply matching are
/// libsystemd's, which every systemd machine has.
final class DesktopNotifications {
    /// A notification to show.
    struct Notification: Equatable {
        var summary: String
        var body: String
        /// 0 low, 1 normal, 2 critical (the specification's urgency levels).
        var urgency: UInt8 = 1
        /// The specification's category hint, e.g. `presence`.
        var category: String?
        /// Milliseconds; -1 lets the server decide.
        var timeout: Int32 = -1
    }

    /// Why notifications cannot be shown.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private typealias OpenUser = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    private typealias NewMethodCall =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?
        ) -> Int32
    private typealias AppendBasic = @convention(c) (OpaquePointer?, CChar, UnsafeRawPointer?) -> Int32
    private typealias OpenContainer = @convention(c) (OpaquePointer?, CChar, UnsafePointer<CChar>?) -> Int32
    private typealias CloseContainer = @convention(c) (OpaquePointer?) -> Int32
    private typealias Call =
        @convention(c) (
            OpaquePointer?, OpaquePointer?, UInt64, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<OpaquePointer?>?
        ) -> Int32
    private typealias ReadBasic = @convention(c) (OpaquePointer?, CChar, UnsafeMutableRawPointer?) -> Int32
    private typealias Unref = @convention(c) (OpaquePointer?) -> OpaquePointer?
    private typealias ErrorFree = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private let openUser: OpenUser
    private let newMethodCall: NewMethodCall
    private let appendBasic: AppendBasic
    private let openContainer: OpenContainer
    private let closeContainer: CloseContainer
    private let call: Call
    private let readBasic: ReadBasic
    private let messageUnref: Unref
    private let busClose: Unref
    private let errorFree: ErrorFree
    private var bus: OpaquePointer?
    /// The application name notifications are sent under.
    let appName: String

    /// Loads sd-bus; connects on the first notification.
    init(appName: String = "SimplyLock") throws {
        guard let library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL) else {
            throw Failure(description: "cannot load libsystemd.so.0: \(String(cString: dlerror()))")
        }
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            guard let pointer = dlsym(library, name) else { throw Failure(description: "libsystemd has no \(name)") }
            return unsafeBitCast(pointer, to: type)
        }
        openUser = try symbol("sd_bus_open_user", OpenUser.self)
        newMethodCall = try symbol("sd_bus_message_new_method_call", NewMethodCall.self)
        appendBasic = try symbol("sd_bus_message_append_basic", AppendBasic.self)
        openContainer = try symbol("sd_bus_message_open_container", OpenContainer.self)
        closeContainer = try symbol("sd_bus_message_close_container", CloseContainer.self)
        call = try symbol("sd_bus_call", Call.self)
        readBasic = try symbol("sd_bus_message_read_basic", ReadBasic.self)
        messageUnref = try symbol("sd_bus_message_unref", Unref.self)
        busClose = try symbol("sd_bus_flush_close_unref", Unref.self)
        errorFree = try symbol("sd_bus_error_free", ErrorFree.self)
        self.appName = appName
    }

    deinit { disconnect() }

    /// Drops the connection; the next notification connects again (the session bus restarted).
    func disconnect() {
        if let bus { _ = busClose(bus) }
        bus = nil
    }

    /// Shows a notification, replacing the one with id `replaces` (0: none); returns its id.
    @discardableResult
    func notify(_ notification: Notification, replaces: UInt32 = 0) throws -> UInt32 {
        if bus == nil {
            var opened: OpaquePointer?
            let result = openUser(&opened)
            guard result >= 0, let opened else { throw Failure(description: "cannot connect to the session bus: \(Self.errno(result))") }
            bus = opened
        }
        var message: OpaquePointer?
        try check(
            newMethodCall(
                bus, &message, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications", "Notify"), "build the call")
        defer { _ = messageUnref(message) }
        // Notify(app_name s, replaces_id u, app_icon s, summary s, body s, actions as, hints a{sv}, expire_timeout i)
        try append(message, string: appName)
        var replacesID = replaces
        try check(appendBasic(message, CChar(UInt8(ascii: "u")), &replacesID), "append")
        try append(message, string: "security-high")
        try append(message, string: notification.summary)
        try append(message, string: notification.body)
        try check(openContainer(message, CChar(UInt8(ascii: "a")), "s"), "append")
        try check(closeContainer(message), "append")
        try check(openContainer(message, CChar(UInt8(ascii: "a")), "{sv}"), "append")
        var urgency = notification.urgency
        try hint(message, "urgency", type: "y") { try check(appendBasic(message, CChar(UInt8(ascii: "y")), &urgency), "append") }
        if let category = notification.category {
            try hint(message, "category", type: "s") { try append(message, string: category) }
        }
        try hint(message, "desktop-entry", type: "s") { try append(message, string: "simplylock") }
        try check(closeContainer(message), "append")
        var timeout = notification.timeout
        try check(appendBasic(message, CChar(UInt8(ascii: "i")), &timeout), "append")

        var error = [UInt8](repeating: 0, count: 32)
        var reply: OpaquePointer?
        let result = error.withUnsafeMutableBytes { call(bus, message, 5_000_000, $0.baseAddress, &reply) }
        defer { if let reply { _ = messageUnref(reply) } }
        if result < 0 {
            let text = error.withUnsafeMutableBytes { raw -> String in
                let name = raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
                let detail = raw.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
                errorFree(raw.baseAddress)
                return [name, detail].compactMap { $0 }.joined(separator: ": ")
            }
            // A broken connection is opened again next time.
            disconnect()
            throw Failure(description: "Notify failed: \(text.isEmpty ? Self.errno(result) : text)")
        }
        var id: UInt32 = 0
        _ = readBasic(reply, CChar(UInt8(ascii: "u")), &id)
        return id
    }

    private func append(_ message: OpaquePointer?, string: String) throws {
        try string.withCString { try check(appendBasic(message, CChar(UInt8(ascii: "s")), $0), "append") }
    }

    private func hint(_ message: OpaquePointer?, _ key: String, type: String, _ value: () throws -> Void) throws {
        try check(openContainer(message, CChar(UInt8(ascii: "e")), "sv"), "append")
        try append(message, string: key)
        try check(openContainer(message, CChar(UInt8(ascii: "v")), type), "append")
        try value()
        try check(closeContainer(message), "append")
        try check(closeContainer(message), "append")
    }

    private func check(_ result: Int32, _ what: String) throws {
        if result < 0 { throw Failure(description: "cannot \(what): \(Self.errno(result))") }
    }

    private static func errno(_ result: Int32) -> String { String(cString: strerror(-result)) }
}
