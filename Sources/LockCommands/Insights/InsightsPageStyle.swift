/// The page's style sheet: light by default, dark when the reader's system prefers it. Every
/// colour that carries meaning has 3:1 contrast or more against its background in both
/// themes (WCAG 2.1 1.4.11), and the meaning is also written in text beside it.
enum InsightsPageStyle {
    static let css = """
        :root { color-scheme: light dark; --text: #1d2733; --muted: #4f5a66; --page: #fbfbf8; --card: #ffffff; --rule: #d9ddd6;
          --track: #e8ebe6; --focus: #2f7ea6; --met: #2e8549; --goal: #a8660c; --attempt: #b23a4e; --usage: #6b4fb8; }
        @media (prefers-color-scheme: dark) {
          :root { --text: #e6e9ec; --muted: #a9b2bc; --page: #15191e; --card: #1d232a; --rule: #343c46;
            --track: #2a3038; --focus: #5fb3dc; --met: #5cc27a; --goal: #e9a440; --attempt: #f0788a; --usage: #a990f0; }
        }
        body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em;
          color: var(--text); background: var(--page); line-height: 1.4; }
        h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin: 1.8em 0 0.4em; }
        .muted { color: var(--muted); }
        .tiles { display: flex; flex-wrap: wrap; gap: 0.6em; margin: 1em 0; padding: 0; list-style: none; }
        .tiles li { background: var(--card); border: 1px solid var(--rule); border-radius: 8px; padding: 0.5em 0.9em; min-width: 8em; }
        .tiles strong { display: block; font-size: 1.3em; }
        .legend { display: flex; flex-wrap: wrap; gap: 1.2em; padding: 0; margin: 0.3em 0 0.6em; list-style: none; }
        .swatch { display: inline-block; width: 1.4em; height: 0.8em; margin-right: 0.4em; vertical-align: baseline; border-radius: 2px; }
        .swatch.line { height: 0; border-top: 2px dashed var(--goal); border-radius: 0; vertical-align: middle; }
        table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--rule); border-radius: 8px; }
        caption { text-align: left; color: var(--muted); padding: 0 0 0.3em; }
        th, td { padding: 0.25em 0.6em; text-align: left; border-bottom: 1px solid var(--rule); white-space: nowrap; }
        th[scope=col] { font-weight: 600; color: var(--muted); } td.num { text-align: right; font-variant-numeric: tabular-nums; }
        td.chart { width: 55%; } td.chart svg { width: 100%; height: 16px; display: block; }
        .track { fill: var(--track); } .focus { fill: var(--focus); background: var(--focus); } .met { fill: var(--met); background: var(--met); }
        .attempt { fill: var(--attempt); background: var(--attempt); } .usage { fill: var(--usage); background: var(--usage); }
        .goal { stroke: var(--goal); stroke-width: 2; stroke-dasharray: 4 3; }
        .note { color: var(--muted); font-size: 0.9em; }
        """
}
