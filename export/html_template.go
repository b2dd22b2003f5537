package export

import "html/template"

// htmlCSS styles the HTML export. It is inline so that the file is whole on
// its own; it follows the reader's light or dark preference.
const htmlCSS = template.CSS(`
:root { --fg:#1f2328; --muted:#656d76; --bg:#fff; --panel:#f6f8fa; --line:#d0d7de;
  --ok:#1a7f37; --err:#cf222e; --warn:#9a6700; --accent:#0969da; --user:#ddf4ff; }
@media (prefers-color-scheme: dark) {
  :root { --fg:#e6edf3; --muted:#8d96a0; --bg:#0d1117; --panel:#161b22; --line:#30363d;
    --ok:#3fb950; --err:#f85149; --warn:#d29922; --accent:#4493f8; --user:#0c2d4a; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 62rem; padding: 1.5rem; color: var(--fg); background: var(--bg);
  font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
code, pre, .cmd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { margin: .25rem 0; padding: .5rem .75rem; background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.session { margin-bottom: 3rem; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0 0 1rem;
  padding: .75rem 1rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
.meta dt { color: var(--muted); } .meta dd { margin: 0; overflow-wrap: anywhere; }
.timeline { list-style: none; margin: 0; padding: 0; }
.ev { margin: .5rem 0; padding: .4rem .75rem; border-left: 3px solid var(--line); }
.d1 { margin-left: 1.5rem; } .d2 { margin-left: 3rem; } .d3 { margin-left: 4.5rem; }
.d4 { margin-left: 6rem; } .d5 { margin-left: 7.5rem; } .d6 { margin-left: 9rem; }
.sub { border-left-color: var(--accent); }
.stamp { color: var(--muted); font-size: 12px; }
.agent { color: var(--accent); font-size: 12px; margin-left: .5rem; }
.user { background: var(--user); border-left-color: var(--accent); border-radius: 0 6px 6px 0; }
.prompt, .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.md { overflow-wrap: anywhere; } .md p { margin: .35rem 0; }
.md table { border-collapse: collapse; } .md td, .md th { border: 1px solid var(--line); padding: .2rem .5rem; }
.head { display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; }
.cmd { font-weight: 600; overflow-wrap: anywhere; }
.badge { font-size: 12px; font-weight: 600; padding: 0 .45rem; border-radius: 1rem; border: 1px solid; }
.ok { color: var(--ok); } .err { color: var(--err); } .warn { color: var(--warn); } .muted { color: var(--muted); }
.muted, .dur, .cwd { color: var(--muted); font-size: 12px; }
.failed { border-left-color: var(--err); }
.approval { border-left-color: var(--warn); }
.deleg { border-left-color: var(--accent); font-weight: 600; }
details { margin: .25rem 0; } summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.diff .del { color: var(--err); } .diff .ins { color: var(--ok); }
.reasons { margin: .25rem 0; padding-left: 1.25rem; }
.url { color: var(--muted); }
footer { color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: .5rem; }
`)

// htmlTemplates is the page, one template per part. Every value from a
// recording goes through html/template's escaping; only the chat markdown,
// rendered by markdownHTML, is inserted as HTML.
const htmlTemplates = `
{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="cuff">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
{{end}}

{{define "session"}}<section class="session">
<header>
<h1>{{.Title}}</h1>
<dl class="meta">{{range .Meta}}
<dt>{{.Key}}</dt><dd>{{.Value}}</dd>{{end}}
</dl>
</header>
<ol class="timeline">
{{end}}

{{define "sessionEnd"}}</ol>
<footer>{{.}}</footer>
</section>
{{end}}

{{define "foot"}}</body>
</html>
{{end}}

{{define "item"}}<li class="ev{{with .Class}} {{.}}{{end}}{{if .Depth}} sub d{{.Depth}}{{end}}">
<div class="stamp">{{.Time}}{{with .Who}} · {{.}}{{end}}{{if .Agent}}<span class="agent">{{.Agent}}</span>{{end}}</div>
{{- if eq .Kind "user"}}
<div class="prompt">{{.Text}}</div>
{{- else if eq .Kind "assistant"}}
<div class="md">{{.HTML}}</div>{{if .Note}}<div class="muted">{{.Note}}</div>{{end}}
{{- else if eq .Kind "thinking"}}
<details><summary>{{.Title}}</summary><div class="text">{{.Text}}</div></details>
{{- else if eq .Kind "tool"}}
<div class="head"><strong>{{.Title}}</strong>{{template "badge" .Badge}}{{if .Duration}}<span class="dur">{{.Duration}}</span>{{end}}</div>
{{- if .Diff}}
<div class="muted">{{.Path}}</div>
<pre class="diff">{{range .Diff}}<span class="{{.Class}}">{{.Text}}</span>
{{end}}</pre>
{{- else if .Input}}
{{template "output" .Input}}
{{- end}}
{{- range .Outputs}}{{template "output" .}}{{end}}
{{- else if eq .Kind "bash"}}
<div class="head">{{template "badge" .Badge}}<code class="cmd">$ {{.Title}}</code>{{if .Duration}}<span class="dur">{{.Duration}}</span>{{end}}{{if .Path}}<span class="cwd">in {{.Path}}</span>{{end}}</div>
{{- if .Text}}<div class="muted">{{.Text}}</div>{{end}}
{{- range .Outputs}}{{template "output" .}}{{end}}
{{- range .Notes}}<div class="warn">{{.}}</div>{{end}}
{{- else if eq .Kind "deleg"}}
<div>{{.Title}}</div>
{{- if .Text}}<div class="text">{{.Text}}</div>{{end}}
{{- range .Outputs}}{{template "output" .}}{{end}}
{{- else if eq .Kind "approval"}}
<div class="head">{{template "badge" .Badge}}<strong>{{.Title}}</strong></div>
{{- if .Text}}<pre>{{.Text}}</pre>{{end}}
{{- if .Notes}}<ul class="reasons">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{- if .Diff}}<pre class="diff">{{range .Diff}}<span class="{{.Class}}">{{.Text}}</span>
{{end}}</pre>{{end}}
{{- if .Note}}<div>{{.Note}}</div>{{end}}
{{- else}}
<div>{{.Title}}</div>
{{- if .Text}}<div class="muted">{{.Text}}</div>{{end}}
{{- range .Outputs}}{{template "output" .}}{{end}}
{{- end}}
</li>
{{end}}

{{define "badge"}}{{if .Text}}<span class="badge {{.Class}}">{{.Text}}</span>{{end}}{{end}}

{{define "output"}}<details{{if .Open}} open{{end}}><summary>{{.Label}} <span class="muted">{{.Info}}</span></summary><pre>{{.Text}}</pre></details>
{{end}}
`

// parseHTMLTemplates parses the page templates.
func parseHTMLTemplates() (*template.Template, error) {
	return template.New("page").Parse(htmlTemplates)
}
