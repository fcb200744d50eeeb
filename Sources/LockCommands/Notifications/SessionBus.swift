import CSessionBus
import Foundation
import Glibc

/// The session bus of `lockctl notify`: one connection, run by a thread of its own, which sends
/// notifications, receives their actions and serves the tray icon (`CSessionBus`, sd-bus opened
/// with dlopen). Notification servers send `ActionInvoked` to the connection that sent `Notify`,
/// so both travel on this one connection, and only its thread touches it: other threads hand
/// work over with `perform`.
final class SessionBus: @unchecked Sendable {
    /// Why the bus cannot be used.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The negative errno, where there is one.
        var code: Int32 = 0
    }

    /// What the bus reports, called on its thread.
    final class Handlers: @unchecked Sendable {
        var action: (UInt32, String) -> Void = { _, _ in }
        var clicked: (Int32) -> Void = { _ in }
        var registered: (String?) -> Void = { _ in }
        fileprivate var wake: () -> Void = {}
    }

    let handlers = Handlers()
    private let bus: OpaquePointer
    private let lock = NSLock()
    private var queued: [() -> Void] = []
    private var lost: String?

    init() throws(Failure) {
        var callbacks = sl_bus_callbacks()
        callbacks.context = Unmanaged.passRetained(handlers).toOpaque()
        callbacks.wake = { context in Unmanaged<Handlers>.fromOpaque(context!).takeUnretainedValue().wake() }
        callbacks.action = { context, id, key in
            Unmanaged<Handlers>.fromOpaque(context!).takeUnretainedValue().action(id, String(cString: key!))
        }
        callbacks.clicked = { context, item in Unmanaged<Handlers>.fromOpaque(context!).takeUnretainedValue().clicked(item) }
        callbacks.registered = { context, message in
            Unmanaged<Handlers>.fromOpaque(context!).takeUnretainedValue().registered(message.map { String(cString: $0) })
        }
        var error = [CChar](repeating: 0, count: 512)
        var code: Int32 = 0
        guard let opened = sl_bus_open(&callbacks, &code, &error, error.count) else {
            Unmanaged<Handlers>.fromOpaque(callbacks.context).release()
            throw Failure(description: Self.text(error), code: code)
        }
        bus = opened
        handlers.wake = { [unowned self] in runQueued() }
    }

    /// Exports the tray icon (before `start`).
    func exportTray() throws(Failure) {
        var error = [CChar](repeating: 0, count: 512)
        if sl_bus_export_tray(bus, &error, error.count) < 0 { throw Failure(description: Self.text(error)) }
    }

    /// Runs the bus on a thread of its own; `onLost` is called there if the connection ends.
    func start(onLost: @escaping @Sendable (String) -> Void) {
        let thread = Thread { [self] in
            let result = sl_bus_run(bus)
            let reason = "lost the session bus: \(String(cString: strerror(-result)))"
            lock.withLock { lost = reason }
            runQueued()
            onLost(reason)
        }
        thread.name = "session bus"
        thread.start()
    }

    /// Runs `body` on the bus thread and waits for it.
    func perform<T>(_ body: @escaping (OpaquePointer) throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, any Error> = .failure(Failure(description: "the session bus is gone"))
        let done = DispatchSemaphore(value: 0)
        let bus = self.bus
        let accepted = lock.withLock { () -> Bool in
            guard lost == nil else { return false }
            queued.append {
                if self.lock.withLock({ self.lost }) == nil { result = Result { try body(bus) } }
                done.signal()
            }
            return true
        }
        guard accepted else { throw Failure(description: lock.withLock { lost } ?? "the session bus is gone") }
        sl_bus_wake(bus)
        done.wait()
        return try result.get()
    }

    private func runQueued() {
        let work = lock.withLock { () -> [() -> Void] in
            defer { queued = [] }
            return queued
        }
        for job in work { job() }
    }

    /// Shows a notification on the bus thread; returns its id.
    func notify(
        _ notification: DesktopNotifications.Notification, appName: String, replaces: UInt32, label: (NotificationAction) -> String
    ) throws -> UInt32 {
        let pairs = notification.actions.flatMap { [$0.rawValue, label($0)] }
        return try perform { bus in
            var id: UInt32 = 0
            var error = [CChar](repeating: 0, count: 512)
            let result = Self.withCStrings(pairs) { actions in
                sl_bus_notify(
                    bus, appName, replaces, "security-high", notification.summary, notification.body, actions, pairs.count / 2,
                    notification.urgency, notification.category, DesktopNotifications.desktopEntry, notification.timeout, &id, &error,
                    error.count)
            }
            if result < 0 { throw Failure(description: Self.text(error)) }
            return id
        }
    }

    /// Replaces what the tray icon shows (any thread).
    func setTray(_ model: TrayModel) {
        // dbusmenu takes "_" for the mark of an access key; "__" is an underscore.
        let labels = model.items.map { $0.label.replacingOccurrences(of: "_", with: "__") }
        Self.withCStrings(labels) { pointers in
            var items = model.items.enumerated().map { index, item in
                sl_menu_item(
                    id: item.id, parent: item.parent, label: pointers[index], enabled: item.enabled, separator: item.separator)
            }
            items.withUnsafeMutableBufferPointer { buffer in
                var state = sl_tray_state(
                    status: nil, icon: nil, title: nil, tooltip_title: nil, tooltip_body: nil, items: buffer.baseAddress,
                    count: buffer.count)
                model.status.rawValue.withCString { status in
                    model.icon.withCString { icon in
                        model.title.withCString { title in
                            model.tooltipTitle.withCString { tooltipTitle in
                                model.tooltipBody.withCString { tooltipBody in
                                    state.status = status
                                    state.icon = icon
                                    state.title = title
                                    state.tooltip_title = tooltipTitle
                                    state.tooltip_body = tooltipBody
                                    sl_bus_set_tray(bus, &state)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private static func text(_ buffer: [CChar]) -> String { buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } }

    /// Calls `body` with C copies of `strings`, freed afterwards.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> T) rethrows -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return try body(copies.map { UnsafePointer($0) })
    }
}
