import Foundation

/// The HTML of the page's charts: each chart is a table (its caption names it, each row's
/// numbers are text a screen reader reads), and each bar is a small SVG beside them that
/// assistive technology skips, since it only repeats the row's number.
struct InsightsBars {
    /// One row: its header cell, the bar's value and class, and the cells after the bar.
    struct Row {
        var label: String
        var value: Double
        var style: String
        var cells: [String]
    }

    var caption: String
    var columns: [String]
    var rows: [Row]
    /// Where the bars' full width is.
    var scale: Double
    /// A goal drawn as a dashed line in every row, at the same place.
    var goal: Double?

    /// A table of `rows`: the label, a bar, then the cells (the first of them right after the bar).
    func html() -> String {
        var out = "<table>\n<caption>\(Self.escape(caption))</caption>\n<thead><tr>"
        out += columns.enumerated().map { index, name in "<th scope=\"col\"\(index == 1 ? " colspan=\"2\"" : "")>\(Self.escape(name))</th>"
        }
        .joined()
        out += "</tr></thead>\n<tbody>\n"
        for row in rows {
            out += "<tr><th scope=\"row\">\(Self.escape(row.label))</th><td class=\"chart\">\(bar(row))</td>"
            out += row.cells.map { "<td class=\"num\">\(Self.escape($0))</td>" }.joined()
            out += "</tr>\n"
        }
        return out + "</tbody>\n</table>\n"
    }

    private func bar(_ row: Row) -> String {
        let width = 400.0
        let filled = scale > 0 ? max(0, min(width, row.value / scale * width)) : 0
        var svg = "<svg aria-hidden=\"true\" focusable=\"false\" viewBox=\"0 0 400 16\" preserveAspectRatio=\"none\">"
        svg += "<rect class=\"track\" x=\"0\" y=\"2\" width=\"400\" height=\"12\" rx=\"2\"/>"
        svg += "<rect class=\"\(row.style)\" x=\"0\" y=\"2\" width=\"\(Self.format(filled))\" height=\"12\" rx=\"2\"/>"
        if let goal, scale > 0 {
            let x = Self.format(min(width - 1, goal / scale * width))
            svg += "<line class=\"goal\" x1=\"\(x)\" y1=\"0\" x2=\"\(x)\" y2=\"16\"/>"
        }
        return svg + "</svg>"
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
