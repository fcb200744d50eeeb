import Foundation
import LockProtocol

/// The one-line forms of the status, for status bars (`lockctl status --format`): plain text
/// (polybar, tmux, anything that shows a line), waybar's JSON and i3blocks' lines. The block
/// shown first is the one that ends first; the others are counted, and listed in the tooltip.
enum StatusLine {
    /// The forms `--format` takes.
    enum Format: String, CaseIterable {
        case line, waybar, i3blocks
    }

    /// `deep-work 44m59s`, `deep-work 44m59s +1`, `idle`.
    static func text(_ status: StatusResponse) -> String {
        guard let first = status.sessions.min(by: { $0.remainingSeconds < $1.remainingSeconds }) else { return "idle" }
        let more = status.sessions.count > 1 ? " +\(status.sessions.count - 1)" : ""
        return "\(first.profile) \(TextFormat.duration(seconds: first.remainingSeconds))\(more)"
    }

    /// One line per block: `deep-work until 12:30 (44m59s left, strict)`.
    static func tooltip(_ status: StatusResponse) -> String {
        guard !status.sessions.isEmpty else { return "nothing is blocked" }
        return status.sessions.sorted { $0.remainingSeconds < $1.remainingSeconds }.map { session in
            let target = session.target == ["local"] ? "" : " for \(session.target.joined(separator: ","))"
            let strict = session.strict ? ", strict" : ""
            return "\(session.profile)\(target) until \(TextFormat.clock(session.endsAt, now: status.now)) "
                + "(\(TextFormat.duration(seconds: session.remainingSeconds)) left\(strict))"
        }.joined(separator: "\n")
    }

    /// The status in `format`, as the bar reads it (i3blocks: full text, short text, colour).
    static func render(_ status: StatusResponse, format: Format) -> String {
        let active = !status.sessions.isEmpty
        switch format {
        case .line:
            return text(status)
        case .waybar:
            let strict = status.sessions.contains(where: \.strict)
            let object = WaybarObject(
                text: text(status), tooltip: tooltip(status), alt: active ? "active" : "idle",
                class: active ? (strict ? ["active", "strict"] : ["active"]) : ["idle"])
            return JSONText.compact(object)
        case .i3blocks:
            let short = status.sessions.min(by: { $0.remainingSeconds < $1.remainingSeconds }).map {
                TextFormat.duration(seconds: $0.remainingSeconds)
            }
            return [text(status), short ?? "idle"].joined(separator: "\n") + (active ? "\n#E06C75" : "")
        }
    }

    /// What waybar's `custom` module reads with `"return-type": "json"`.
    struct WaybarObject: Encodable {
        var text: String
        var tooltip: String
        var alt: String
        var `class`: [String]
    }
}
