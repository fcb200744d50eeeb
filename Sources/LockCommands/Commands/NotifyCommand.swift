import ArgumentParser
import Foundation
import Glibc
import LockClient
import LockProtocol

/// `lockctl notify`: the desktop companion. Follows the event stream and raises freedesktop
/// notifications for blocks starting and ending, schedule warnings, Pomodoro phases, and
/// shields for blocked sites and apps; and shows a tray icon with a menu.
struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Show desktop notifications and a tray icon for blocks, Pomodoro phases and blocked sites (runs until stopped).",
        discussion: """
            Meant to run in your desktop session: `systemctl --user enable --now simplylock-notify.service` \
            starts it with every login. It waits for simplylockd when it is not running and follows it across \
            restarts, without polling. Notifications of a block carry Extend, Stop (not for strict blocks) and \
            Open buttons. Repeated attempts to open a blocked site make one notification a minute.

            The tray icon (a StatusNotifierItem: KDE, waybar and most panels show it; GNOME with the AppIndicator \
            extension) shows whether anything is blocked and the nearest end, and offers to start a block or a \
            Pomodoro, to stop what may be stopped and to open the app (`lockctl ui`).

            A notice about a blocked site or app needs an enforcer that sees the attempt: `dns` (a lookup it \
            answered), `nftables` or `connections` (a connection it refused) or `apps` (a program it stopped). The \
            `hosts` and `bpf` enforcers block without telling the daemon, so with them alone there is none.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Show a blocked site or app again only after this long.", valueName: "duration"))
    var cooldown: String = "1m"

    @Option(help: ArgumentHelp("Length of a block started from the tray menu.", valueName: "duration"))
    var length: String = "45m"

    @Option(help: ArgumentHelp("What a notification's Extend adds.", valueName: "duration"))
    var extendBy: String = "15m"

    @Flag(help: "Show notifications only, no tray icon.")
    var noTray = false

    @Flag(help: "Print the notifications instead of sending them over D-Bus (for trying it out; no tray icon).")
    var print = false

    func run() async throws {
        let cooldown = try DurationArgument.validate(self.cooldown, option: "--cooldown").seconds
        let length = Int(try DurationArgument.validate(self.length, option: "--length").seconds.rounded(.up))
        let extendBy = Int(try DurationArgument.validate(self.extendBy, option: "--extend-by").seconds.rounded(.up))
        let throttle = NotificationThrottle(cooldown: cooldown)
        if print {
            var notifier = Notifier(
                client: global.client, throttle: throttle,
                show: { notification, _ in
                    Swift.print("\(notification.summary)\(notification.body.isEmpty ? "" : " | \(notification.body)")")
                    fflush(nil)
                    return 0
                })
            try notifier.run()
            return
        }
        let bus = try NotifyCommand.sessionBus()
        let labels: @Sendable (NotificationAction) -> String = {
            switch $0 {
            case .extend: "Extend \(TextFormat.duration(seconds: extendBy))"
            case .stop: "Stop"
            case .open: "Open SimplyLock"
            }
        }
        let actions = DaemonActions(
            client: global.client, length: length, extendBy: extendBy,
            openCommand: [Self.ownExecutable, "ui", "--socket", global.socketPath],
            report: { summary, body in
                Notifier.log("\(summary): \(body)")
                let failure = DesktopNotifications.Notification(summary: summary, body: body, category: .failure)
                do { _ = try bus.notify(failure, appName: "SimplyLock", replaces: 0, label: labels) } catch { Notifier.log("\(error)") }
            })
        let buttons = NotificationActions()
        // Every handler is in place before the bus thread starts.
        bus.handlers.action = { id, key in buttons.invoked(id, key, by: actions) }
        var tray: TrayController?
        if !noTray {
            try Self.exportTray(bus)
            let controller = TrayController(client: global.client, actions: actions, publish: { bus.setTray($0) })
            bus.handlers.clicked = { controller.clicked($0) }
            bus.handlers.registered = { problem in
                if let problem {
                    Notifier.log("the tray icon waits for a StatusNotifierWatcher (a panel that shows tray icons): \(problem)")
                } else {
                    Notifier.log("the tray icon is registered with the StatusNotifierWatcher")
                }
            }
            tray = controller
        }
        bus.start { reason in
            Notifier.log(reason)
            Glibc.exit(ExitCodes.failure)
        }
        var notifier = Notifier(
            client: global.client, throttle: throttle,
            show: { notification, replaces in
                let id = try bus.notify(notification, appName: "SimplyLock", replaces: replaces, label: labels)
                buttons.shown(id, notification)
                return id
            }, tray: tray)
        try notifier.run()
    }

    /// This lockctl, for `lockctl ui`.
    static var ownExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func sessionBus() throws -> SessionBus {
        do { return try SessionBus() } catch {
            let hint =
                switch -error.code {
                case ENOMEDIUM:
                    "run it in your desktop session (`systemctl --user enable --now simplylock-notify.service`), or set "
                        + "DBUS_SESSION_BUS_ADDRESS; --print shows the notifications on stdout instead"
                case ENOENT, ENOSYS: "lockctl notify needs libsystemd (sd-bus)"
                default: "is the session bus running? --print shows the notifications on stdout instead"
                }
            throw CommandFailure(code: ExitCodes.failure, error.description, hint: hint)
        }
    }

    static func exportTray(_ bus: SessionBus) throws {
        do { try bus.exportTray() } catch {
            throw CommandFailure(code: ExitCodes.failure, error.description, hint: "--no-tray shows notifications without a tray icon")
        }
    }
}
