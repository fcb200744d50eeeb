import ArgumentParser
import Foundation
import Glibc

/// `lockctl ui`: runs `simplylock-ui`, the web UI's server, in lockctl's place. The server is
/// a program of its own so that lockctl, which status bars run every second, links no event
/// loop; it is looked for next to lockctl first (where `make install` puts it).
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Open the app in your browser: Home, Profiles, Insights, Timer and Settings.",
        discussion: """
            Serves the app on 127.0.0.1 and ::1 only, as you: the daemon decides what you may change, as for lockctl. \
            The address carries a token that works once and becomes a session cookie; other Host headers and writes \
            from other origins are refused. Serves until interrupted (Ctrl-C); a later `lockctl ui` in the same session \
            (the tray's Open) asks the running server for a new address instead of starting another.
            """)

    @Flag(help: "Print the address with its token instead of opening a browser (for SSH port forwarding and scripts).")
    var noOpen = false

    @Option(help: ArgumentHelp("Port to listen on (default: a free one).", valueName: "port"))
    var port: Int?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (0...65535).contains(port ?? 0) else { throw ValidationError("--port: \(port ?? 0) is not a port (0 to 65535)") }
    }

    func run() async throws {
        guard let server = Self.serverPath() else {
            throw CommandFailure(
                code: ExitCodes.failure, "simplylock-ui is not installed next to lockctl or on the PATH",
                hint: "`make install` installs it beside lockctl")
        }
        var arguments = [server, "--socket", global.socketPath, "--port", String(port ?? 0)]
        if noOpen { arguments.append("--no-open") }
        if global.json { arguments.append("--json") }
        var argv = arguments.map { strdup($0) } + [nil]
        execv(server, &argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        throw CommandFailure(code: ExitCodes.failure, "cannot run \(server): \(reason)")
    }

    /// `simplylock-ui` beside lockctl's own (real) path, else on the PATH.
    static func serverPath() -> String? {
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        var candidates = [own + "/simplylock-ui"]
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            candidates.append("\(directory)/simplylock-ui")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }
}
