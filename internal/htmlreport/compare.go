package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/mcpeval/mcpeval/internal/baseline"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
)

//go:embed assets/compare.css
var compareStyle string

// WriteComparison writes the comparison as one self-contained HTML page: no
// script, no network, every text escaped by html/template, a
// Content-Security-Policy that allows only its own style.
func WriteComparison(w io.Writer, c *baseline.Comparison) error {
	csp := "default-src 'none'; style-src '" + cspHash(compareStyle) + "'; base-uri 'none'; form-action 'none'"
	return compareTemplate.Execute(w, struct {
		*baseline.Comparison
		CSP   string
		Style template.CSS
	}{c, csp, template.CSS(compareStyle)})
}

var compareTemplate = template.Must(template.New("compare").Funcs(template.FuncMap{
	"pct":    func(r float64) string { return fmt.Sprintf("%.1f%%", 100*r) },
	"delta":  func(a, b float64) string { return fmt.Sprintf("%+.1f", 100*(b-a)) },
	"p":      func(p float64) string { return fmt.Sprintf("%.4g", p) },
	"tools":  func(t []string) string { return strings.Join(t, " → ") },
	"what":   tooldiff.What,
	"count":  tooldiff.Count,
	"tokens": tooldiff.Tokens,
	// The anchor is encoded already (only unreserved characters and %XX):
	// escaped again, its link would name no case.
	"anchor": func(name, model string) template.URL { return template.URL(CaseAnchor(name, model)) },
	// caseID is a case row's id: its anchor, which report.html links to.
	"caseID": CaseAnchor,
	"outcome": func(o *baseline.CaseOutcome) string {
		if o == nil {
			return "—"
		}
		if o.Runs > 1 {
			return fmt.Sprintf("%d/%d passed", o.Passes, o.Runs)
		}
		return string(o.Status)
	},
	"worse": func(worse bool) string {
		if worse {
			return "worse"
		}
		return "not worse"
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Comparison of evaluation runs</title>
<style>{{.Style}}</style>
</head>
<body>
<h1>Comparison of evaluation runs</h1>
<div class="sub" id="runs">{{.Current.RunID}} ({{.Current.Model}}{{with .Current.Replay}}, a replay of run {{.Source}}{{end}}) against the baseline {{.Base.RunID}} ({{.Base.Model}}{{with .Base.Replay}}, a replay of run {{.Source}}{{end}})</div>
{{if .Significant}}<div class="verdict bad" id="verdict">Significant regression at level {{.Alpha}}</div>
{{else}}<div class="verdict good" id="verdict">No significant regression at level {{.Alpha}}</div>{{end}}
<p class="gate" id="gate">The run as a whole: {{worse .Gate.RunWorse}} ({{.Gate.Worse}} cases worse, {{.Gate.Better}} better; one-sided signed-rank p = {{p .Gate.RunP}}, level {{.Gate.RunLevel}}).
Cases flagged: {{.Gate.Flagged}} of {{.Gate.Tested}} tested (one-sided Fisher p adjusted for a false discovery rate of {{.Gate.CaseLevel}}).
At level {{.Alpha}}, two runs of an unchanged model fail this gate at most {{pct .Alpha}} of the time.</p>
<dl>
<div><dt>Regressions</dt><dd id="regressions">{{.Regressed}}</dd></div>
<div><dt>Fixes</dt><dd>{{.Fixed}}</dd></div>
<div><dt>Signed-rank p</dt><dd>{{p .Gate.RunP}}</dd></div>
<div><dt>Cases flagged</dt><dd id="flagged">{{.Gate.Flagged}} of {{.Gate.Tested}}</dd></div>
<div><dt>New cases</dt><dd>{{.Count "new"}}</dd></div>
<div><dt>Removed cases</dt><dd>{{.Count "removed"}}</dd></div>
<div><dt>Tool trajectory changed</dt><dd>{{.ToolsChanged}}</dd></div>
<div><dt>Flips by cause</dt><dd id="causes">{{.CauseLine}}</dd></div>
</dl>
{{with .ByCause}}<section class="causes" id="why">
<h2>Why they flipped</h2>
{{range .}}<h3 id="cause-{{.Cause}}">{{.Cause}}: {{len .Cases}}</h3>
<ul>{{range .Cases}}<li><span class="{{.Change}}">{{.Change}}</span> <a href="report.html#{{anchor .Name .Model}}">{{.Name}}</a>{{if .Model}} [{{.Model}}]{{end}}: {{.Attribution.Deciding}}
{{range .Attribution.Further}}<div class="further">also {{.Cause}}: {{.Why}}</div>{{end}}
{{range .Attribution.AllDataChanges}}<div class="data"><code>{{.Tool}} {{.Arguments}}</code>: <code>{{.Diff}}</code></div>{{end}}</li>
{{end}}</ul>
{{end}}</section>
{{end}}
{{with .Tools}}<section class="surface" id="tool-changes">
<h2>Tool surface changes since the baseline: {{count .}}</h2>
<ul>
{{with .Tokens}}{{if .Changed}}<li id="token-change"{{if .Growth}} class="grew"{{end}}>{{tokens .}}{{if .Growth}} <span class="sig">the context tax of every request went up</span>{{end}}
{{range .Grew}}<div><code>{{.Tool}}</code>: {{.Before}} → {{.Now}} tokens</div>{{end}}</li>
{{end}}{{end}}{{range .Servers}}<li>server {{.Name}}: {{if .Added}}added ({{.NewVersion}}){{else if .Removed}}removed ({{.OldVersion}}){{else}}version {{.OldVersion}} → {{.NewVersion}}{{end}}</li>
{{end}}{{range .Added}}<li>added: <code>{{.Tool}}</code> ({{.Server}})</li>
{{end}}{{range .Removed}}<li>removed: <code>{{.Tool}}</code> ({{.Server}})</li>
{{end}}{{range .Changed}}<li>changed: <code>{{.Tool}}</code> ({{.Server}}): {{what .}}
{{if .DescriptionChanged}}<div>description was: {{.OldDescription}}</div><div>description now: {{.NewDescription}}</div>{{end}}
{{if .SchemaDiff}}<pre>{{.SchemaDiff}}</pre>{{end}}</li>
{{end}}</ul>
</section>
{{end}}<h2>By category</h2>
<table id="categories">
<thead><tr><th>Category</th><th class="num">Baseline</th><th class="num">Now</th><th class="num">Δ points</th></tr></thead>
<tbody>{{range .Categories}}<tr><td>{{.Name}}</td><td class="num">{{pct .Base}}</td><td class="num">{{pct .Current}}</td><td class="num">{{delta .Base .Current}}</td></tr>
{{end}}</tbody>
</table>
<h2>Cases</h2>
<table id="cases">
<thead><tr><th>Change</th><th>Case</th><th>Category</th><th>Baseline</th><th>Now</th><th class="num">p</th><th class="num">Adjusted p</th><th>Tools (baseline / now)</th><th>Cause</th><th>Tool changes</th></tr></thead>
<tbody>{{range .Cases}}{{if or (ne .Change "unchanged") .ToolsChanged .Significant}}<tr id="{{caseID .Name .Model}}">
<td class="{{.Change}}">{{.Change}}{{if .Significant}} <span class="sig">significant</span>{{end}}</td>
<td><a href="report.html#{{anchor .Name .Model}}">{{.Name}}</a>{{if .Model}} [{{.Model}}]{{end}}</td><td>{{.Category}}</td>
<td>{{outcome .Base}}</td><td>{{outcome .Current}}</td><td class="num">{{.PText}}</td><td class="num">{{.AdjustedPText}}</td>
<td class="tools">{{if .ToolsChanged}}{{tools .Base.Tools}}<br>{{tools .Current.Tools}}{{end}}</td>
<td class="cause">{{with .Attribution}}{{.Names}}{{end}}</td>
<td class="why">{{range .ToolChanges}}<div>{{.}}</div>{{end}}</td>
</tr>
{{if and (or (eq .Change "regression") (eq .Change "fix")) .Base .Current}}<tr class="answers">
<td></td><td colspan="9"><div class="side"><div><h3>Baseline answer</h3><p class="answer">{{.Base.Answer}}</p><p class="reason">{{.Base.Reason}}</p></div>
<div><h3>Now</h3><p class="answer">{{.Current.Answer}}</p><p class="reason">{{.Current.Reason}}</p></div></div></td>
</tr>
{{end}}{{end}}{{end}}</tbody>
</table>
</body>
</html>
`))

// CaseAnchor is the fragment of report.html that opens a case: its name,
// and its model when the run has several (name@model), each encoded as
// JavaScript's encodeURIComponent does.
func CaseAnchor(name, model string) string {
	a := encodeURIComponent(name)
	if model != "" {
		a += "@" + encodeURIComponent(model)
	}
	return a
}

// encodeURIComponent escapes s as JavaScript's encodeURIComponent does.
func encodeURIComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
