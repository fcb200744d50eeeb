import ArgumentParser
import Foundation
import Glibc
import LockClient
import LockProtocol

/// `lockctl notify`: the desktop companion. Follows the event stream and raises freedesktop
/// notifications for blocks starting and ending, schedule warnings, Pomodoro phases, and
/// shields for blocked sites and apps.
struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Show desktop notifications for blocks, warnings, Pomodoro phases and blocked sites (runs until stopped).",
        discussion: """
            Meant to run in your desktop session: `systemctl --user enable --now simplylock-notify.service` \
            starts it with every login. It waits for simplylockd when it is not running and follows it across \
            restarts, without polling. Repeated attempts to open a blocked site make one notification a minute.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Show a blocked site or app again only after this long (default 1m).", valueName: "duration"))
    var cooldown: String = "1m"

    @Flag(help: "Print the notifications instead of sending them over D-Bus (for trying it out).")
    var print = false

    func run() async throws {
        let cooldown = try DurationArgument.validate(self.cooldown, option: "--cooldown").seconds
        let sink: (DesktopNotifications.Notification, UInt32) throws -> UInt32
        if print {
            sink = { notification, _ in
                Swift.print("\(notification.summary)\(notification.body.isEmpty ? "" : " | \(notification.body)")")
                fflush(nil)
                return 0
            }
        } else {
            let bus = try NotifyCommand.desktop()
            sink = { try bus.notify($0, replaces: $1) }
        }
        var notifier = Notifier(client: global.client, throttle: NotificationThrottle(cooldown: cooldown), show: sink)
        try notifier.run()
    }

    static func desktop() throws -> DesktopNotifications {
        do { return try DesktopNotifications() } catch let error as DesktopNotifications.Failure {
            throw CommandFailure(code: ExitCodes.failure, error.description, hint: "lockctl notify needs libsystemd (sd-bus)")
        }
    }
}
