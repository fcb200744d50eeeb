import Foundation
import LockClient
import LockPlatform
import LockProtocol

/// `lockctl status` and `lockctl status --json` as status bars run them, every second or two,
/// answered before the argument parser starts. The parser reflects over every command's
/// options at start-up, which costs about four times what the rest of the call does; this
/// path reads only the few spellings it knows and leaves everything else, and every failure,
/// to `Lockctl.run`, so errors keep their one style.
public enum StatusPoll {
    /// Prints the status and exits when `arguments` ask for nothing but it; returns otherwise.
    public static func answer(_ arguments: [String] = ProcessArguments.current) {
        guard let request = Request(arguments) else { return }
        let client = LockClient(socketPath: GlobalOptions.socketPath(root: request.root, socket: request.socket))
        let text: String
        do {
            if request.json {
                text = JSONText.indent(compact: try client.fetchBody(Endpoints.status))
            } else {
                text = StatusCommand.render(try client.fetch(Endpoints.status))
            }
        } catch {
            return
        }
        print(text)
        exit(ExitCodes.success)
    }

    /// The command lines this path takes: `status`, optionally `--json`, `--root DIR` and
    /// `--socket PATH` (also as `--root=DIR`), each at most once, before or after `status`.
    struct Request: Equatable {
        var root = "/"
        var socket: String?
        var json = false

        init?(_ arguments: [String]) {
            // An array, not a Set: three options at most, and a Set's first use costs more than
            // the rest of this parse.
            var seen: [String] = []
            var sawStatus = false
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                index += 1
                var option = argument
                var value: String?
                if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                    option = String(argument[..<equals])
                    value = String(argument[argument.index(after: equals)...])
                }
                switch option {
                case "status" where value == nil && !sawStatus:
                    sawStatus = true
                    continue
                case "--json" where value == nil:
                    json = true
                case "--root", "--socket":
                    if value == nil {
                        guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
                        value = arguments[index]
                        index += 1
                    }
                    guard let value, !value.isEmpty else { return nil }
                    if option == "--root" { root = value } else { socket = value }
                default:
                    return nil
                }
                guard !seen.contains(option) else { return nil }
                seen.append(option)
            }
            guard sawStatus else { return nil }
        }
    }
}
