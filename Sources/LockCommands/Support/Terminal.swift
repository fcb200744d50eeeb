import Foundation
import Glibc

/// What the terminal lockctl writes to can show: colours only on a terminal, and never with
/// `NO_COLOR` set or `TERM=dumb` (https://no-color.org).
enum Terminal {
    /// Whether standard output gets colours.
    static let colours: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if environment["NO_COLOR"].map({ !$0.isEmpty }) == true || environment["TERM"] == "dumb" { return false }
        if environment["SIMPLYLOCK_COLOR"] == "always" { return true }
        return isatty(STDOUT_FILENO) == 1
    }()

    /// Colours of states, as systemctl uses them.
    enum Colour: String {
        case green = "32", red = "31", yellow = "33", dim = "2", bold = "1"
    }

    /// `text` in `colour` when colours are on.
    static func paint(_ text: String, _ colour: Colour, enabled: Bool = colours) -> String {
        enabled ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Columns of the terminal, for wrapping prose (80 when unknown).
    static var width: Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 20 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 80
    }
}
