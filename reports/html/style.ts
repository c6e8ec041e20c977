/**
 * The report's style sheet, inlined into the page: system fonts only (no web fonts, no network),
 * light and dark schemes, and every mark carries a symbol as well as a colour.
 */
export const REPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #fbfbfa; --fg: #1d1f21; --muted: #6a6f75; --line: #d9dcdf; --panel: #ffffff;
  --pass: #17733a; --pass-bg: #e3f4e8; --fail: #b3261e; --fail-bg: #fbe4e2;
  --warn: #8a5a00; --warn-bg: #fff2d6; --accent: #2757c7; --hl: #fff1a8;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #17191b; --fg: #e6e6e3; --muted: #9aa0a6; --line: #33373b; --panel: #1f2225;
    --pass: #6fd08c; --pass-bg: #16321f; --fail: #ff8a80; --fail-bg: #3a1b19;
    --warn: #f2c56b; --warn-bg: #3a2e12; --accent: #8fb0ff; --hl: #4d4312;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 16px 24px 64px; overflow-wrap: anywhere; }
h1 { font-size: 20px; margin: 8px 0 4px; }
h2 { font-size: 17px; margin: 24px 0 8px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
a { color: var(--accent); }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 4px 0; padding: 8px; background: var(--bg); border: 1px solid var(--line);
  border-radius: 4px; overflow: auto; max-height: 420px; white-space: pre-wrap; word-break: break-word; }
.muted { color: var(--muted); }
.mark { display: inline-block; min-width: 1.6em; padding: 0 4px; border-radius: 3px;
  text-align: center; font-weight: 600; }
.mark.pass { color: var(--pass); background: var(--pass-bg); }
.mark.fail { color: var(--fail); background: var(--fail-bg); }
.mark.skip { color: var(--warn); background: var(--warn-bg); }
.badge { display: inline-block; padding: 0 6px; border: 1px solid var(--line); border-radius: 10px;
  font-size: 12px; white-space: nowrap; max-width: 100%; overflow: hidden; text-overflow: ellipsis;
  vertical-align: bottom; }
.badge.fail { color: var(--fail); border-color: currentColor; }
.badge.warn { color: var(--warn); border-color: currentColor; }
.badge.ok { color: var(--pass); border-color: currentColor; }
.stats { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 8px 0 12px; }
.stats div { min-width: 0; }
table { border-collapse: collapse; background: var(--panel); }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { font-weight: 600; position: sticky; top: 0; background: var(--panel); }
td.num, th.num { text-align: right; }
td.dim, th.dim { text-align: center; }
.matrix-wrap { overflow: auto; max-height: 75vh; border: 1px solid var(--line); border-radius: 4px; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 8px 0; }
.filters label { display: inline-flex; gap: 6px; align-items: center; }
.run-head { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
.run-head dt { color: var(--muted); }
.run-head dd { margin: 0; }
.grades { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; }
.grade { border: 1px solid var(--line); border-radius: 4px; padding: 8px 12px; background: var(--panel); }
.grade h3 { margin: 0 0 4px; display: flex; gap: 8px; align-items: baseline; }
.findings { margin: 6px 0 0; padding-left: 18px; }
.findings li { margin: 4px 0; }
.refs { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 2px; }
.figures { font-size: 12px; color: var(--muted); }
.block { border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; background: var(--panel); }
.block > header { padding: 4px 10px; border-bottom: 1px solid var(--line); font-weight: 600;
  display: flex; gap: 12px; align-items: baseline; }
.lanes { display: grid; grid-template-columns: 1fr 1fr; }
@media (max-width: 900px) { .lanes { grid-template-columns: 1fr; } }
.lane { list-style: none; margin: 0; padding: 6px 10px; min-width: 0; }
.lane + .lane { border-left: 1px dashed var(--line); }
.lane-title { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.event { padding: 4px 6px; margin: 2px 0; border-left: 3px solid var(--line); border-radius: 2px;
  scroll-margin: 40vh 0; }
.event .what { font-weight: 600; }
.event code, .finding { overflow-wrap: anywhere; }
.matrix { width: 100%; }
.matrix td { overflow-wrap: normal; }
.matrix td.scenario, .matrix td.plan, .matrix td.agent { overflow-wrap: anywhere; }
.matrix td.num, .matrix td.dim, .matrix td.verdict, .matrix th { white-space: nowrap; }
.matrix th.dim { vertical-align: bottom; text-align: center; padding: 4px 2px; width: 2.6em; }
.matrix th.dim > span { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: 500; }
.matrix td.dim { padding: 4px 2px; }
.matrix td.scenario { min-width: 10em; }
.matrix .kinds, .matrix .why { font-size: 12px; }
.matrix td.expected .why { color: var(--fail); }
.legend { font-size: 12px; margin: 6px 0 0; }
.event.kind-call { border-left-color: var(--accent); }
.event.kind-fault { border-left-color: var(--warn); background: var(--warn-bg); }
.event.kind-effect { border-left-color: var(--pass); }
.event.kind-crash { border-left-color: var(--fail); background: var(--fail-bg); }
.event.kind-operator, .event.kind-approval { border-left-color: #8e44ad; }
.event.transition { border-left-color: var(--fg); }
.event.cited { box-shadow: inset 0 0 0 1px var(--fail); }
.event:target, .event.highlight { background: var(--hl); outline: 2px solid var(--accent); }
.cites { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 2px; }
.kv { color: var(--muted); }
.kv code { color: var(--fg); }
details > summary { cursor: pointer; color: var(--muted); }
nav.top { margin: 4px 0 12px; }
[hidden] { display: none !important; }
`;

/** The model transcript's rules: added only to a page with a model, so others keep their bytes. */
export const MODEL_CSS = `
.transcript { margin: 12px 0; }
.model-call { border: 1px solid var(--line); border-left: 3px solid var(--accent); border-radius: 4px;
  margin: 8px 0; background: var(--panel); display: grid; grid-template-columns: 1fr 1fr; }
@media (max-width: 900px) { .model-call { grid-template-columns: 1fr; } }
.model-call > header { grid-column: 1 / -1; padding: 4px 10px; border-bottom: 1px solid var(--line);
  display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.model-call .what { font-weight: 600; }
.model-call .sent, .model-call .received { padding: 6px 10px; min-width: 0; }
.model-call .received { border-left: 1px dashed var(--line); }
.msgs { list-style: none; margin: 0; padding: 0; }
.msg { margin: 4px 0; padding: 2px 6px; border-left: 3px solid var(--line); }
.msg .role { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.msg.role-system { border-left-color: var(--muted); }
.msg.role-user { border-left-color: var(--accent); }
.msg.role-assistant { border-left-color: var(--pass); }
.msg.role-tool { border-left-color: #8e44ad; }
.msg-part code { overflow-wrap: anywhere; }
.model-error { color: var(--fail); }
`;
