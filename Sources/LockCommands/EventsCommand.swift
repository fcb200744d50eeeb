import ArgumentParser
import Foundation
import LockProtocol

/// `lockctl events`: follow the event stream.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Follow events (blocks starting and ending, warnings) as they happen.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let json = global.json
        let encoder = API.makeEncoder()
        try await global.call { client in
            try await client.events { event in
                if json {
                    print(String(decoding: try encoder.encode(event), as: UTF8.self))
                } else {
                    print("\(TextFormat.clock(event.at))  \(event.type.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0))\(event.message)")
                }
                fflush(nil)
            }
        }
    }
}

import LockClient
