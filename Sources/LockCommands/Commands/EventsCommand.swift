import ArgumentParser
import Foundation
import LockClient
import LockProtocol

/// `lockctl events`: follow the event stream.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Follow events (blocks starting and ending, warnings, Pomodoro phases) as they happen.",
        discussion: """
            With --json, each event is printed as the daemon sent it, one JSON object per line, starting with a \
            `hello` event once the stream is live. Ends when simplylockd stops (its last event is `daemon.stopping`).
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let json = global.json
        let hint = global.unreachableHint
        do {
            try global.client.followEventLines { line in
                if json {
                    // As sent, the greeting included: scripts may wait for it to know the
                    // stream is live.
                    print(String(decoding: line, as: UTF8.self))
                } else {
                    // The greeting only says the stream is live.
                    guard let event = LooseEvent.decode(line), event.type != Event.Kind.hello.rawValue else { return }
                    print(EventsCommand.line(event))
                }
                fflush(nil)
            }
        } catch let error as ClientError {
            throw CommandFailure(error, unreachableHint: hint)
        }
    }

    /// `15:42  session.started     deep-work blocked for 45m`.
    static func line(_ event: LooseEvent, now: Date = Date()) -> String {
        let type = event.type.padding(toLength: max(18, event.type.count + 2), withPad: " ", startingAt: 0)
        return "\(TextFormat.clock(event.at, now: now))  \(type)\(event.message)"
    }
}
