package settings

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/joho/godotenv"

	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/suggest"
)

// DotEnvVar names the .env file to read instead of the project root's
// .env; "off" reads none (tests use it to stay clear of a developer's keys).
const DotEnvVar = "EVAL_DOTENV"

// ServeVar, set to 1, makes a suite's test binary serve its bundled MCP
// server over stdio instead of running tests.
const ServeVar = "EVAL_SERVE_SAMPLE"

// otherVars are the suite's variables that are not settings of the table.
var otherVars = []string{DotEnvVar, ServeVar}

// variables are the environment's and the .env file's, which knows the
// line of each.
type variables struct {
	env, dotenv map[string]string
	dotenvPath  string
	dotenvLine  map[string]int
}

// readVariables reads the environment (NAME=value entries) and the .env
// file of the project root (or EVAL_DOTENV's).
func readVariables(root string, environ []string) (variables, error) {
	vars := variables{env: map[string]string{}, dotenvPath: filepath.Join(root, ".env")}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars.env[k] = v
		}
	}
	switch p := vars.env[DotEnvVar]; {
	case p == "off":
		return vars, nil
	case p != "":
		vars.dotenvPath = abs(root, p)
	}
	data, err := os.ReadFile(vars.dotenvPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return vars, nil
	case err != nil:
		return vars, err
	}
	vars.dotenv, vars.dotenvLine, err = parseDotEnv(vars.dotenvPath, data)
	return vars, err
}

// lookup gives a variable's value from the environment, else from the
// .env file.
func (vars variables) lookup(name string) (string, bool) {
	if v, ok := vars.env[name]; ok && v != "" {
		return v, true
	}
	v, ok := vars.dotenv[name]
	return v, ok
}

// from says where lookup found a variable.
func (vars variables) from(name string) string {
	if vars.env[name] != "" {
		return inEnv(name)
	}
	return vars.inDotEnv(name)
}

func inEnv(name string) string { return name + " (environment)" }

func (vars variables) inDotEnv(name string) string {
	return fmt.Sprintf("%s:%d: %s", vars.dotenvPath, vars.dotenvLine[name], name)
}

var dotEnvName = regexp.MustCompile(`^\s*(?:export\s+)?([A-Za-z0-9_.]+)\s*[=:]`)

// parseDotEnv reads a .env file as godotenv does, and the line that sets
// each variable (the last). A file that cannot be read is an error that
// names the first line that does not parse, and does not quote it (it may
// hold a secret).
func parseDotEnv(path string, data []byte) (map[string]string, map[string]int, error) {
	values, err := godotenv.UnmarshalBytes(data)
	lines := strings.SplitAfter(string(data), "\n")
	if err != nil {
		// The statement after the longest prefix of lines that parses.
		bad := 1
		for n := range lines {
			if _, err := godotenv.UnmarshalBytes([]byte(strings.Join(lines[:n], ""))); err == nil {
				bad = n + 1
			}
		}
		line := ""
		if bad-1 < len(lines) {
			line = lines[bad-1]
		}
		return nil, nil, fmt.Errorf("%s:%d: not a NAME=value line (%s)", path, bad, dotEnvHint(line))
	}
	where := map[string]int{}
	for i, line := range lines {
		if m := dotEnvName.FindStringSubmatch(line); m != nil {
			where[m[1]] = i + 1
		} else if t := strings.TrimSpace(line); strings.HasPrefix(t, "=") {
			// godotenv skips a value without a name.
			return nil, nil, fmt.Errorf("%s:%d: not a NAME=value line (it has no name before its =)", path, i+1)
		}
	}
	return values, where, nil
}

// dotEnvHint says what a .env line that does not parse lacks, without
// quoting it (it may hold a secret).
func dotEnvHint(line string) string {
	name, value, ok := strings.Cut(line, "=")
	if !ok {
		name, value, ok = strings.Cut(line, ":")
	}
	name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "export "))
	value = strings.TrimSpace(value)
	switch {
	case !ok:
		return "it has no '=' between a name and a value"
	case name == "" || strings.ContainsFunc(name, func(r rune) bool { return !(r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)) }):
		return "the name before '=' may hold only letters, digits, '_' and '.'"
	case strings.HasPrefix(value, `"`) || strings.HasPrefix(value, "'") || strings.HasPrefix(value, "`"):
		return "its quoted value needs its closing quote"
	}
	return "see the .env format: NAME=value, one a line, # for comments"
}

// unknown is an error naming each EVAL_ variable of the environment or of
// the .env file that is not one of the suite's, with the closest real
// one: a misspelt setting would otherwise be ignored.
func (vars variables) unknown() error {
	known := slices.Clone(otherVars)
	for _, s := range table() {
		known = append(known, s.env)
	}
	var errs []error
	check := func(names []string, where func(string) string) {
		slices.Sort(names)
		for _, name := range names {
			if strings.HasPrefix(name, "EVAL_") && !slices.Contains(known, name) {
				errs = append(errs, fmt.Errorf("%s is not a setting: did you mean %s? (go test ./evaltest -args -h lists them)", where(name), closest(name, known)))
			}
		}
	}
	check(slices.Collect(maps.Keys(vars.env)), inEnv)
	check(slices.Collect(maps.Keys(vars.dotenv)), vars.inDotEnv)
	return errors.Join(errs...)
}

// closest names the candidates most like name (see suggest.Closest).
func closest(name string, candidates []string) string {
	c, _ := suggest.Closest(name, candidates)
	return c
}

// OutDir is the output directory as the suite resolves it when no flag
// gives one: EVAL_OUT from the environment (getenv) or the .env file, else
// the default, relative to the project root.
func OutDir(getenv func(string) string) (string, error) {
	root, err := files.ModuleRoot()
	if err != nil {
		return "", err
	}
	vars, err := readVariables(root, []string{"EVAL_OUT=" + getenv("EVAL_OUT"), DotEnvVar + "=" + getenv(DotEnvVar)})
	if err != nil {
		return "", err
	}
	out, ok := vars.lookup("EVAL_OUT")
	if !ok || out == "" {
		out = DefaultOut
	}
	return abs(root, out), nil
}

// IsolatedEnv returns the process environment without the suite's settings
// (EVAL_*), provider variables (OPENAI_*, OPENROUTER_*, AZURE_OPENAI_*) and
// OpenTelemetry variables (OTEL_*), with the .env
// file and the progress line turned off: the starting point for running
// the suite as a subprocess whose configuration the caller sets entirely.
func IsolatedEnv() []string {
	out := []string{DotEnvVar + "=off", "EVAL_PROGRESS=" + ProgressOff}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "EVAL_") || strings.HasPrefix(name, "OPENAI_") || strings.HasPrefix(name, "OPENROUTER_") ||
			strings.HasPrefix(name, "AZURE_OPENAI_") || strings.HasPrefix(name, "OTEL_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func abs(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// CheckFlags refuses a flag of args (the test binary's command line) that
// fs does not define, naming the nearest one, before the flag package
// answers it with every flag there is (go test's own included).
func CheckFlags(fs *flag.FlagSet, args []string) error {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") {
			names = append(names, "-"+f.Name)
		}
	})
	value := false // the next argument is the value of the flag before it
	for _, arg := range args {
		if value {
			value = false
			continue
		}
		if arg == "--" {
			return nil
		}
		if len(arg) < 2 || arg[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f := fs.Lookup(name)
		if f == nil && name != "h" && name != "help" {
			return fmt.Errorf("-%s is not a flag of the suite%s; go test ./evaltest -args -h lists them", name, suggest.DidYouMean("-"+name, names))
		}
		if f != nil && !hasValue {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			value = !(ok && b.IsBoolFlag())
		}
	}
	return nil
}
