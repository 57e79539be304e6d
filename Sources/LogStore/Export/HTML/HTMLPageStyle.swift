/// The page's style sheet: light and dark themes, level colours, monospace rows, a sticky
/// filter bar.
enum HTMLPageStyle {
    static let css = #"""
    :root {
      --bg: #f7f8fa; --panel: #ffffff; --text: #1f2328; --muted: #6b7280; --line: #e5e7eb; --hover: #f1f5f9;
      --accent: #4f46e5; --selected: #e0e7ff; --mark: #fde68a; --code: #f6f8fa;
      --trace: #9ca3af; --debug: #64748b; --info: #2563eb; --notice: #0f766e; --warning: #b45309; --error: #dc2626; --critical: #be123c;
      --warning-bg: #fffbeb; --error-bg: #fef2f2; --critical-bg: #ffe4e6;
      --mono: ui-monospace, "SFMono-Regular", "JetBrains Mono", "DejaVu Sans Mono", Menlo, Consolas, monospace;
      --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --bg: #0f1115; --panel: #161a20; --text: #e6e8eb; --muted: #8b949e; --line: #262c36; --hover: #1c222b;
        --accent: #818cf8; --selected: #272f4a; --mark: #854d0e; --code: #11151b;
        --trace: #6b7280; --debug: #94a3b8; --info: #60a5fa; --notice: #2dd4bf; --warning: #fbbf24; --error: #f87171; --critical: #fb7185;
        --warning-bg: #2a2110; --error-bg: #2c1517; --critical-bg: #3a1420;
      }
    }
    * { box-sizing: border-box; }
    html, body { height: 100%; margin: 0; }
    body { background: var(--bg); color: var(--text); font: 13px/1.45 var(--sans); }
    #app { display: flex; flex-direction: column; height: 100vh; }
    button, select, input { font: inherit; color: inherit; }
    [hidden] { display: none !important; }
    .muted { color: var(--muted); }
    .mono { font-family: var(--mono); }
    .top { display: flex; align-items: center; gap: 24px; padding: 10px 18px; background: var(--panel); border-bottom: 1px solid var(--line); }
    .brand { display: flex; align-items: baseline; gap: 10px; min-width: 0; }
    .brand .name { font-weight: 650; font-size: 15px; letter-spacing: .2px; }
    .logo { width: 12px; height: 12px; border-radius: 3px; background: linear-gradient(135deg, var(--accent), #06b6d4); align-self: center; }
    #summary { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .tabs { display: flex; gap: 4px; margin-left: auto; }
    .tab { border: 1px solid transparent; background: none; padding: 5px 12px; border-radius: 6px; cursor: pointer; color: var(--muted); }
    .tab:hover { background: var(--hover); }
    .tab.active { background: var(--selected); color: var(--text); font-weight: 600; }
    .badge { display: inline-block; min-width: 20px; padding: 0 6px; border-radius: 9px; background: var(--line); color: var(--text); font-size: 11px; text-align: center; font-weight: 500; }
    .filters { position: sticky; top: 0; z-index: 2; display: flex; flex-direction: column; gap: 7px; padding: 8px 18px; background: var(--panel); border-bottom: 1px solid var(--line); }
    .frow { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; min-height: 26px; }
    #q { flex: 1 1 260px; max-width: 560px; padding: 5px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); outline: none; font-family: var(--mono); }
    #q:focus { border-color: var(--accent); box-shadow: 0 0 0 3px color-mix(in srgb, var(--accent) 20%, transparent); }
    select { padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); max-width: 320px; }
    .ghost { border: 1px solid var(--line); background: var(--panel); padding: 5px 10px; border-radius: 6px; cursor: pointer; }
    .ghost:hover { background: var(--hover); }
    .check { display: flex; align-items: center; gap: 5px; cursor: pointer; }
    .shown { margin-left: auto; color: var(--muted); font-variant-numeric: tabular-nums; }
    .levels { display: flex; gap: 4px; flex-wrap: wrap; }
    .chip { display: flex; align-items: center; gap: 5px; border: 1px solid var(--line); background: var(--panel); border-radius: 999px; padding: 2px 9px 2px 7px; cursor: pointer; font-size: 12px; }
    .chip:hover { background: var(--hover); }
    .chip .dot { width: 8px; height: 8px; border-radius: 50%; background: currentColor; }
    .chip .chip-count { color: var(--muted); font-variant-numeric: tabular-nums; }
    .levels.some .chip:not(.on) { opacity: .45; }
    .chip.on { border-color: currentColor; background: color-mix(in srgb, currentColor 10%, var(--panel)); }
    .chip > span:nth-child(2) { color: var(--text); }
    .lv-trace { color: var(--trace); } .lv-debug { color: var(--debug); } .lv-info { color: var(--info); } .lv-notice { color: var(--notice); }
    .lv-warning { color: var(--warning); } .lv-error { color: var(--error); } .lv-critical { color: var(--critical); }
    main { flex: 1; min-height: 0; display: flex; flex-direction: column; position: relative; }
    .view { flex: 1; min-height: 0; display: flex; flex-direction: column; }
    .thead, .row, .trow { display: grid; align-items: center; gap: 12px; padding: 0 18px; }
    .mhead, .row { grid-template-columns: 96px 66px 130px minmax(0, 1fr) auto; }
    .theadt, .trow { grid-template-columns: 96px 62px 52px minmax(120px, 220px) minmax(0, 1fr) 80px 80px; }
    body.dated .mhead, body.dated .row { grid-template-columns: 176px 66px 130px minmax(0, 1fr) auto; }
    body.dated .theadt, body.dated .trow { grid-template-columns: 176px 62px 52px minmax(120px, 220px) minmax(0, 1fr) 80px 80px; }
    .thead { height: 26px; font-size: 11px; text-transform: uppercase; letter-spacing: .5px; color: var(--muted); border-bottom: 1px solid var(--line); background: var(--bg); }
    .list { flex: 1; min-height: 0; overflow: auto; position: relative; background: var(--panel); }
    .spacer { position: relative; }
    .row, .trow { position: absolute; left: 0; right: 0; height: 24px; cursor: pointer; border-bottom: 1px solid color-mix(in srgb, var(--line) 55%, transparent); font-family: var(--mono); font-size: 12px; white-space: nowrap; }
    .row:hover, .trow:hover { background: var(--hover); }
    .row > span, .trow > span { overflow: hidden; text-overflow: ellipsis; }
    .c-time { color: var(--muted); font-variant-numeric: tabular-nums; }
    .c-level { font-weight: 600; text-transform: uppercase; font-size: 10.5px; letter-spacing: .4px; }
    .c-label { color: var(--muted); }
    .row .c-text { color: var(--text); }
    .row.lv-trace .c-text { color: var(--muted); }
    .row.lv-warning { background: var(--warning-bg); }
    .row.lv-error { background: var(--error-bg); }
    .row.lv-critical { background: var(--critical-bg); }
    .row.lv-critical .c-text { font-weight: 600; }
    .row.selected, .trow.selected { background: var(--selected); box-shadow: inset 3px 0 0 var(--accent); }
    .c-meta { color: var(--muted); font-size: 10.5px; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
    mark { background: var(--mark); color: inherit; border-radius: 2px; }
    .c-method { font-weight: 600; }
    .c-status { font-weight: 600; }
    .good { color: #15803d; } .redirect { color: #a16207; } .bad { color: var(--error); } .pending { color: var(--muted); }
    .c-host { color: var(--muted); }
    .c-num { text-align: right; color: var(--muted); font-variant-numeric: tabular-nums; }
    .trow.st-failure { background: var(--error-bg); }
    .empty { position: absolute; top: 60px; left: 0; right: 0; text-align: center; color: var(--muted); }
    .foot { padding: 4px 18px; font-size: 11px; color: var(--muted); border-top: 1px solid var(--line); background: var(--panel); }
    .drawer { position: fixed; top: 0; right: 0; bottom: 0; width: min(760px, 55vw); z-index: 5; display: flex; flex-direction: column; background: var(--panel); border-left: 1px solid var(--line); box-shadow: -12px 0 32px rgba(15, 23, 42, .12); }
    .drawer-head { display: flex; align-items: center; gap: 12px; padding: 12px 18px; border-bottom: 1px solid var(--line); }
    .drawer-head h2 { margin: 0; font-size: 14px; font-family: var(--mono); font-weight: 600; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .drawer-body { flex: 1; overflow: auto; padding: 14px 18px 40px; }
    .pill { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11px; font-weight: 600; text-transform: uppercase; border: 1px solid currentColor; }
    .task-summary { display: flex; align-items: center; gap: 10px; margin-bottom: 10px; }
    .task-summary .url { word-break: break-all; }
    .code { font-family: var(--mono); font-size: 12px; background: var(--code); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; white-space: pre-wrap; word-break: break-word; margin: 8px 0; max-height: 70vh; overflow: auto; }
    .message-text { font-size: 13px; }
    .facts { border-collapse: collapse; width: 100%; margin: 6px 0; }
    .facts th { text-align: left; vertical-align: top; font-weight: 500; color: var(--muted); padding: 3px 14px 3px 0; white-space: nowrap; width: 1%; }
    .facts td { padding: 3px 0; word-break: break-word; }
    .facts td.mono { font-size: 12px; }
    .bad-text { color: var(--error); }
    .part { margin-top: 18px; }
    .part h3 { font-size: 11px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); margin: 0 0 4px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
    .part h4 { margin: 8px 0 0; font-size: 12px; }
    .note { background: var(--warning-bg); border: 1px solid color-mix(in srgb, var(--warning) 35%, transparent); border-radius: 6px; padding: 6px 10px; }
    .j-key { color: #7c3aed; } .j-str { color: #047857; } .j-num { color: #1d4ed8; } .j-lit { color: #b45309; }
    @media (prefers-color-scheme: dark) { .j-key { color: #c4b5fd; } .j-str { color: #6ee7b7; } .j-num { color: #93c5fd; } .j-lit { color: #fcd34d; } .good { color: #4ade80; } }
    .preview { max-width: 100%; max-height: 360px; border: 1px solid var(--line); border-radius: 6px; background: repeating-conic-gradient(#e5e7eb 0% 25%, transparent 0% 50%) 50% / 16px 16px; }
    .tx-head { font-family: var(--mono); font-size: 12px; margin: 8px 0 4px; word-break: break-all; }
    .bar-line { display: grid; grid-template-columns: 80px 1fr 80px; gap: 8px; align-items: center; height: 20px; font-size: 12px; }
    .bar-name { color: var(--muted); }
    .bar-track { position: relative; height: 10px; background: var(--hover); border-radius: 3px; }
    .bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; background: var(--accent); }
    .ph-dns { background: #0ea5e9; } .ph-connect { background: #f59e0b; } .ph-tls { background: #a855f7; } .ph-request { background: #22c55e; }
    .ph-waiting { background: #94a3b8; } .ph-response { background: #3b82f6; } .ph-total { background: #64748b; opacity: .5; }
    .bar-ms { text-align: right; color: var(--muted); font-variant-numeric: tabular-nums; }
    """#
}
