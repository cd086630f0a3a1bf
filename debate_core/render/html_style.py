"""The stylesheet of the HTML export (:mod:`debate_core.render.html`): inline, system fonts only,
for the screen (light and dark), a phone's width, and print.  It names no URL: the export makes
no request of any kind."""

CSS = """
:root { --ink: #1d1d1f; --muted: #5f6368; --line: #dadce0; --paper: #ffffff; --card: #fbfbfa;
  --side-0: #1f6fb2; --side-1: #c2571a; --side-2: #2e7d32; --side-3: #7b1fa2; --side-4: #5d4037;
  --side-5: #ad1457; --ok: #2e7d32; --bad: #c62828; --undecided: #b26a00; --note: #fff8e1; }
@media (prefers-color-scheme: dark) {
  :root { --ink: #e8eaed; --muted: #a8adb3; --line: #3c4043; --paper: #18191b; --card: #202124;
    --side-0: #6fa8dc; --side-1: #f0a060; --ok: #81c995; --bad: #f28b82; --undecided: #fdd663; --note: #3a3320; }
}
* { box-sizing: border-box; }
html { background: var(--paper); color: var(--ink); }
body { margin: 0 auto; max-width: 46rem; padding: 2.5rem 1.25rem 4rem; line-height: 1.75; font-size: 1.0625rem;
  font-family: "Source Han Serif SC", "Noto Serif CJK SC", "Songti SC", "SimSun", Georgia, "Times New Roman", serif; }
html[lang="en"] body { font-family: Charter, "Bitstream Charter", "Sitka Text", Cambria, Georgia, serif;
  line-height: 1.6; }
h1, h2, h3, summary, .meta, .kicker, table, .badge, footer, .notes, .disclaimer, .side-name {
  font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
h1 { font-size: 1.9rem; line-height: 1.3; margin: .2rem 0 .6rem; }
h2 { font-size: 1.35rem; margin: 2.6rem 0 1rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 0; }
p { margin: 0 0 .85rem; }
.kicker { color: var(--muted); font-size: .85rem; letter-spacing: .04em; margin: 0; }
.meta { color: var(--muted); font-size: .88rem; margin: 0 0 .3rem; }
.disclaimer { color: var(--muted); font-size: .9rem; border-left: 3px solid var(--line); padding: .2rem .8rem;
  margin: 0 0 1.4rem; }
.warning { background: var(--note); border-radius: 6px; padding: .5rem .8rem; font-size: .92rem; margin: .6rem 0; }
.speech { background: var(--card); border: 1px solid var(--line); border-left: 5px solid var(--side-0);
  border-radius: 8px; padding: 1.1rem 1.3rem .8rem; margin: 0 0 1.4rem; }
.speech.side-1 { border-left-color: var(--side-1); } .speech.side-2 { border-left-color: var(--side-2); }
.speech.side-3 { border-left-color: var(--side-3); } .speech.side-4 { border-left-color: var(--side-4); }
.speech.side-5 { border-left-color: var(--side-5); }
.speech > header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .2rem .8rem; margin-bottom: .7rem; }
.speech .side-name { color: var(--muted); font-size: .85rem; }
.speech.failed { border-style: dashed; }
.claim { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .78rem;
  color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; margin-right: .35rem; }
a.ref { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85em; color: inherit; }
sup.nref { font-size: .7em; line-height: 0; font-family: system-ui, sans-serif; }
sup.nref a { text-decoration: none; color: var(--side-0); padding: 0 .1em; }
.args { padding-left: 0; list-style: none; margin: 0 0 .6rem; }
.args li { margin: 0 0 .8rem; }
.args .detail { color: var(--muted); font-size: .95rem; margin: .2rem 0 0 1.2rem; }
.rebuttals { padding-left: 1.2rem; margin: 0 0 .8rem; }
.rebuttals .kind { font-weight: 600; }
.notes { font-size: .86rem; color: var(--muted); border-top: 1px dashed var(--line); margin: .6rem 0 .4rem;
  padding: .5rem 0 0 1.6rem; }
.notes li { margin: .1rem 0; }
.notes .title { color: var(--ink); }
.mark-verified { color: var(--ok); } .mark-unverified { color: var(--bad); }
details.checks { margin: .4rem 0 .2rem; font-size: .88rem; }
details.checks > summary { cursor: pointer; display: inline-block; border-radius: 999px; padding: .05rem .7rem;
  border: 1px solid var(--line); color: var(--muted); list-style: none; }
details.checks > summary::-webkit-details-marker { display: none; }
details.checks.ok > summary { color: var(--ok); border-color: var(--ok); }
details.checks.bad > summary { color: var(--bad); border-color: var(--bad); }
details.checks.undecided > summary { color: var(--undecided); border-color: var(--undecided); }
details.checks ul { margin: .5rem 0 .2rem; padding-left: 1.3rem; color: var(--muted); }
details.more { font-size: .88rem; color: var(--muted); margin: .3rem 0; }
details.more > summary { cursor: pointer; }
.closing { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.3rem; }
.closing h3 { font-size: .82rem; letter-spacing: .05em; color: var(--muted); margin: 1.3rem 0 .3rem; }
.closing dt { font-weight: 600; margin-top: .5rem; font-family: system-ui, sans-serif; }
#analysis h3 { margin: 1.6rem 0 .4rem; }
.closing dd { margin: .1rem 0 .4rem 0; }
.winner { font-size: 1.2rem; font-weight: 700; margin-bottom: .4rem; font-family: system-ui, sans-serif; }
.table-wrap { overflow-x: auto; margin: .4rem 0 1rem; }
table { border-collapse: collapse; font-size: .85rem; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.counts { display: flex; gap: 1.6rem; flex-wrap: wrap; margin: .3rem 0 .6rem; font-family: system-ui, sans-serif; }
.counts b { display: block; font-size: 1.4rem; }
.counts span { color: var(--muted); font-size: .8rem; }
pre.raw { white-space: pre-wrap; font-size: .85rem; background: var(--card); padding: .6rem; border-radius: 6px; }
footer { margin-top: 3rem; color: var(--muted); font-size: .8rem; border-top: 1px solid var(--line);
  padding-top: .6rem; }
@media (max-width: 600px) {
  body { padding: 1.2rem .8rem 3rem; font-size: 1rem; }
  h1 { font-size: 1.5rem; }
  .speech { padding: .9rem .9rem .6rem; }
}
@page { margin: 16mm 15mm; }
@media print {
  :root { --ink: #000; --muted: #444; --line: #bbb; --paper: #fff; --card: #fff; --note: #fff; }
  body { max-width: none; padding: 0; font-size: 11pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  .speech > header, .closing dt { break-after: avoid; page-break-after: avoid; }
  .speech { box-shadow: none; }
  details::details-content { content-visibility: visible; display: block; }
  details.checks > summary { border: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
}
"""
