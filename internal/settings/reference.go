package settings

import (
	"fmt"
	"strings"
)

// ReferencePath is where the settings reference is kept, relative to the
// module root; mcpeval help settings prints it.
const ReferencePath = "docs/settings.md"

// Reference is the settings reference in Markdown, made from the table of
// settings: each setting's environment variable, its flag (go test
// ./evaltest -args -NAME, or after the package), its default and what it
// does. docs/settings.md holds it; a test fails when the page is stale.
func Reference() string {
	var b strings.Builder
	b.WriteString("# Settings\n\n")
	b.WriteString("<!-- Made by `go run ./cmd/mcpeval help settings`, from the suite's table of settings: edit that, not this page. -->\n\n")
	b.WriteString("Every setting is an environment variable (also read from the `.env` file in the project root, or\n")
	b.WriteString("the file `EVAL_DOTENV` names; `EVAL_DOTENV=off` reads none) and a flag of the suite:\n")
	b.WriteString("`go test ./evaltest -model gpt-4o` or `go test ./evaltest -args -model gpt-4o`. A flag wins over\n")
	b.WriteString("the environment, which wins over `.env`, which wins over the default. Relative paths are relative to\n")
	b.WriteString("the project root. A value that cannot be read is an error that says where it came from\n")
	b.WriteString("(`EVAL_CONCURRENCY (environment): invalid value \"many\": must be a whole number`,\n")
	b.WriteString("`-case-timeout: ...`, `/path/.env:12: EVAL_MAX_TOKENS: ...`), and so is a case, label or price file\n")
	b.WriteString("that is named but does not exist; a `.env` line that does not parse is named by its number, never\n")
	b.WriteString("quoted. `go test ./evaltest -args -h` lists the same, with go test's own flags.\n\n")
	b.WriteString("| variable | flag | default | what it sets |\n| --- | --- | --- | --- |\n")
	for _, s := range table() {
		def := "none"
		if s.def != "" {
			def = "`" + s.def + "`"
		}
		flag := "`-" + s.flag + "`"
		if s.kind != "" && s.kind != "bool" {
			flag = "`-" + s.flag + " " + s.kind + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.env, flag, def, cell(s.usage))
	}
	b.WriteString("\nThe provider's own variables (`OPENROUTER_API_KEY`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`, Azure's) are\n")
	b.WriteString("described in [configuration](configuration.md#providers).\n")
	return b.String()
}

// cell makes text fit a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
