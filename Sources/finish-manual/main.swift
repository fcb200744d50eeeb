// finish-manual GENERATED SECTIONS OUTPUT
//
// Completes a manual page made by swift-argument-parser's generate-manual (1.8.2), which knows
// only NAME, SYNOPSIS, DESCRIPTION (options and subcommands in one list) and a standard EXIT
// STATUS sentence. With the hand-written sections in SECTIONS (mdoc, each starting with `.Sh`),
// the page gets:
// - the sections of SECTIONS, replacing generated ones of the same title (SYNOPSIS, EXIT STATUS)
//   and placed in the usual order (NAME, SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS, ENVIRONMENT,
//   FILES, SIGNALS, EXIT STATUS, EXAMPLES, SEE ALSO, AUTHORS);
// - OPTIONS: the top-level options, once; COMMANDS: the subcommands, without the options every
//   command takes (`--root`, `--socket`, `--json`, `--version`, `--help`), which OPTIONS lists;
//   the built-in `help` command dropped;
// - `--x` and `--no-x` as one item; lines indented by two spaces (examples) as literal displays;
//   leading dots in text escaped, so `man -l` has nothing to warn about;
// - Markdown backticks of the help texts as quotes, and a volume title without "BSD" under groff.
// Not installed; the Makefile runs it after generate-manual.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: finish-manual GENERATED SECTIONS OUTPUT\n".utf8))
    exit(2)
}

func readLines(_ path: String) -> [String] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        FileHandle.standardError.write(Data("finish-manual: cannot read \(path)\n".utf8))
        exit(1)
    }
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
}

/// One `.Sh` section: its title and lines.
struct Section {
    var title: String
    var lines: [String]
}

func sections(_ lines: [String]) -> (preamble: [String], sections: [Section]) {
    var preamble: [String] = []
    var result: [Section] = []
    for line in lines {
        if line.hasPrefix(".Sh ") {
            let title = String(line.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).uppercased()
            result.append(Section(title: title, lines: []))
        } else if result.isEmpty {
            preamble.append(line)
        } else {
            result[result.count - 1].lines.append(line)
        }
    }
    return (preamble, result)
}

/// A node of an mdoc body: a line, or a tagged list of items.
indirect enum Node {
    case line(String)
    case list(header: String, items: [Item])
}

struct Item {
    var title: String
    var body: [Node]
}

func parse(_ lines: [String]) -> [Node] {
    var index = 0
    /// The nodes up to the next item of the list being read (or its end, which is consumed and
    /// reported), or to the end of the lines.
    func parseNodes(inItem: Bool) -> (nodes: [Node], listEnded: Bool) {
        var nodes: [Node] = []
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix(".El") {
                index += 1
                if inItem { return (nodes, true) }
                continue
            }
            if line.hasPrefix(".It ") && inItem { return (nodes, false) }
            if line.hasPrefix(".Bl") {
                index += 1
                var items: [Item] = []
                while index < lines.count, lines[index].hasPrefix(".It ") {
                    let title = String(lines[index].dropFirst(4))
                    index += 1
                    let (body, ended) = parseNodes(inItem: true)
                    items.append(Item(title: title, body: body))
                    if ended { break }
                }
                nodes.append(.list(header: line, items: items))
                continue
            }
            nodes.append(.line(line))
            index += 1
        }
        return (nodes, false)
    }
    return parseNodes(inItem: false).nodes
}

/// Escapes text lines, turns runs of lines indented by two spaces into literal displays, and
/// keeps a help text's paragraphs apart: mdoc joins consecutive text lines into one, so a blank
/// line, or a line ending a sentence followed by another (`Example:` after a paragraph; help texts
/// write a paragraph on one line, or wrap it by hand mid-sentence), or text after a display,
/// becomes `.Pp`.
func render(_ nodes: [Node]) -> [String] {
    var out: [String] = []
    var literal: [String] = []
    /// The last text line of the paragraph being written, and whether a blank line followed it.
    var paragraph: (last: String, blank: Bool)?
    func flush() {
        guard !literal.isEmpty else { return }
        out.append(".Bd -literal -offset indent")
        out += literal
        out.append(".Ed")
        literal = []
        // Text after a display starts a paragraph of its own.
        paragraph = ("", true)
    }
    for node in nodes {
        switch node {
        case .line(let line):
            if line.hasPrefix(".") {
                flush()
                out.append(line)
                paragraph = nil
                continue
            }
            // generate-manual has escaped backslashes already.
            var text = line
            if text.hasPrefix("  ") {
                text.removeFirst(2)
                literal.append(text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text)
                paragraph = nil
                continue
            }
            flush()
            if text.trimmingCharacters(in: .whitespaces).isEmpty {
                paragraph?.blank = true
                continue
            }
            if let previous = paragraph, previous.blank || endsSentence(previous.last) { out.append(".Pp") }
            out.append(text.hasPrefix(".") || text.hasPrefix("'") ? "\\&" + text : text)
            paragraph = (text, false)
        case .list(let header, let items):
            flush()
            paragraph = nil
            guard !items.isEmpty else { continue }
            out.append(header)
            for item in items {
                out.append(".It " + item.title)
                out += render(item.body)
            }
            out.append(".El")
        }
    }
    flush()
    return out
}

let everywhere: Set<String> = ["Fl -root Ar dir", "Fl -socket Ar path", "Fl -json", "Fl -version", "Fl h , -help"]

/// A command's list without the options every command takes, `--x`/`--no-x` merged, and the
/// nested commands cleaned the same way.
func cleanCommand(_ nodes: [Node]) -> [Node] {
    nodes.map { node in
        guard case .list(let header, let items) = node else { return node }
        var kept: [Item] = []
        for item in items where !everywhere.contains(item.title) && item.title != "Em help" {
            if item.title.hasPrefix("Fl -no-"), let previous = kept.last, previous.title == "Fl -" + item.title.dropFirst(7) {
                kept[kept.count - 1].title = previous.title + " , " + String(item.title.dropFirst(3))
                continue
            }
            kept.append(Item(title: item.title, body: cleanCommand(item.body)))
        }
        return .list(header: header, items: kept)
    }
}

/// Help texts mark code with Markdown backticks, which a man page would show as they are: outside
/// literal displays each `x` becomes a quoted ‘x’.
func quoted(_ lines: [String]) -> [String] {
    var literal = false
    return lines.map { line in
        if line.hasPrefix(".Bd") { literal = true }
        if line.hasPrefix(".Ed") { literal = false }
        guard !literal else { return line }
        var result = ""
        var open = false
        for character in line {
            if character == "`" {
                result += open ? "\\(cq" : "\\(oq"
                open.toggle()
            } else {
                result.append(character)
            }
        }
        return open ? line : result
    }
}

/// mdoc wants each sentence on a line of its own (the formatter then spaces sentences) and
/// source lines of at most 80 bytes; help texts are whole paragraphs on one line.
func reflowed(_ lines: [String]) -> [String] {
    var literal = false
    var out: [String] = []
    for line in lines {
        if line.hasPrefix(".Bd") { literal = true }
        if line.hasPrefix(".Ed") { literal = false }
        guard !literal, !line.hasPrefix("."), line.utf8.count > 80 || line.contains(". ") else {
            out.append(line)
            continue
        }
        for sentence in sentences(line) {
            var current = ""
            for word in sentence.split(separator: " ", omittingEmptySubsequences: true) {
                if !current.isEmpty, current.utf8.count + 1 + word.utf8.count > 80 {
                    out.append(escapedStart(current))
                    current = ""
                }
                current += current.isEmpty ? String(word) : " " + word
            }
            if !current.isEmpty { out.append(escapedStart(current)) }
        }
    }
    return out
}

/// `text` split after each word that ends a sentence (`.`, `!`, `?`, then closing punctuation).
func sentences(_ text: String) -> [String] {
    var result: [String] = []
    var current = ""
    let words = text.split(separator: " ", omittingEmptySubsequences: true)
    for (index, word) in words.enumerated() {
        current += current.isEmpty ? String(word) : " " + word
        let end = word.reversed().drop { "\")]'".contains($0) }.first
        if let end, ".!?".contains(end), index < words.count - 1 {
            result.append(current)
            current = ""
        }
    }
    if !current.isEmpty { result.append(current) }
    return result
}

/// Whether `line` ends a sentence or introduces what follows (`.`, `!`, `?` or `:`, then any
/// closing punctuation).
func endsSentence(_ line: String) -> Bool {
    guard let end = line.reversed().drop(while: { "\")]' ".contains($0) }).first else { return false }
    return ".!?:".contains(end)
}

func escapedStart(_ line: String) -> String {
    line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
}

let generated = sections(readLines(arguments[1]))
let extra = sections(readLines(arguments[2])).sections
var byTitle: [String: [String]] = [:]
for section in generated.sections { byTitle[section.title] = section.lines }

if let description = byTitle["DESCRIPTION"] {
    let nodes = parse(description)
    var intro: [Node] = []
    var options: [Item] = []
    var commands: [Item] = []
    var header = ".Bl -tag -width Ds"
    for node in nodes {
        guard case .list(let listHeader, let items) = node, options.isEmpty, commands.isEmpty else {
            intro.append(node)
            continue
        }
        header = listHeader
        for item in items {
            if item.title.hasPrefix("Em ") {
                if item.title != "Em help" { commands.append(Item(title: item.title, body: cleanCommand(item.body))) }
            } else {
                options.append(item)
            }
        }
    }
    byTitle["DESCRIPTION"] = render(intro)
    if !options.isEmpty { byTitle["OPTIONS"] = render([.list(header: header, items: options)]) }
    if !commands.isEmpty { byTitle["COMMANDS"] = render([.list(header: header, items: commands)]) }
}
for section in extra { byTitle[section.title] = section.lines }

let order = [
    "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "ENVIRONMENT", "FILES", "SIGNALS", "EXIT STATUS", "EXAMPLES",
    "SEE ALSO", "AUTHORS",
]
// groff 1.22's mdoc titles a page "BSD General Commands Manual" unless this string names the
// system; mandoc ignores it.
var output = [".ds doc-volume-operating-system Linux"] + generated.preamble
for title in order + byTitle.keys.filter({ !order.contains($0) }).sorted() {
    guard let lines = byTitle[title] else { continue }
    output.append(title.contains(" ") ? ".Sh \"\(title)\"" : ".Sh \(title)")
    output += lines
}
output = reflowed(quoted(output)).map { line in
    // A description ending in a full stop trails a delimiter mdoc would print twice.
    guard line.hasPrefix(".Nd \""), line.hasSuffix(".\"") else { return line }
    return String(line.dropLast(2)) + "\""
}
do {
    try (output.joined(separator: "\n") + "\n").write(toFile: arguments[3], atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("finish-manual: cannot write \(arguments[3]): \(error)\n".utf8))
    exit(1)
}
