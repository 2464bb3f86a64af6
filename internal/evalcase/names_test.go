package evalcase

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
)

func casesNamed(names ...string) []eval.Case {
	cases := make([]eval.Case, len(names))
	for i, n := range names {
		cases[i] = eval.Case{Name: n}
	}
	return cases
}

// trickyNames are case names that trip up go test's -run matching.
var trickyNames = []string{
	"Gene lookup", "alias Gene lookup", "Gene lookup", "gene lookup", "Gene lookup_2",
	"a/b", "a.b", "a+b", "A/B", "x (1)", "x", "x#01", "Gene for NM_001045477.4:c.187C>T",
	"$^.*?|[](){}\\", "", "case", "ünïcödé name", "日本語のケース", "tab\tand\nnewline", "trailing space ",
}

func TestSubtestNames(t *testing.T) {
	tests := []struct {
		name  string
		cases []string
		want  []string
	}{
		{"spaces", []string{"Gene lookup"}, []string{"Gene_lookup"}},
		{"punctuation runs collapse", []string{"x (1)"}, []string{"x_1"}},
		{"variant names keep : > ,", []string{"Gene for NM_001045477.4:c.187C>T"}, []string{"Gene_for_NM_001045477_4:c_187C>T"}},
		{"duplicates numbered", []string{"a", "a", "a"}, []string{"a", "a_2", "a_3"}},
		{"case-insensitive duplicates", []string{"Gene lookup", "gene lookup", "GENE_LOOKUP"}, []string{"Gene_lookup", "gene_lookup_2", "GENE_LOOKUP_3"}},
		{"slash, dot and plus collide", []string{"a/b", "a.b", "a+b"}, []string{"a_b", "a_b_2", "a_b_3"}},
		{"suffix collides with a real name", []string{"a_2", "a", "a"}, []string{"a_2", "a", "a_3"}},
		{"nothing usable", []string{"", "???", "   "}, []string{"case", "case_2", "case_3"}},
		{"non-ASCII letters kept", []string{"Gène für Ärzte"}, []string{"Gène_für_Ärzte"}},
		{"leading and trailing junk", []string{"  (hello)  "}, []string{"hello"}},
		{"none", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SubtestNames(casesNamed(tt.cases...)))
		})
	}
}

// assertSafeSubtestName checks a name go test keeps as given and an
// anchored -run pattern selects literally.
func assertSafeSubtestName(t *testing.T, name string) {
	t.Helper()
	assert.NotEmpty(t, name)
	assert.True(t, utf8.ValidString(name), "%q is valid UTF-8", name)
	assert.NotContains(t, name, "/")
	assert.False(t, strings.ContainsFunc(name, unicode.IsSpace), "%q has no space", name)
	assert.Equal(t, regexp.QuoteMeta(name), name, "%q has no regexp metacharacter", name)
	for _, r := range name {
		assert.True(t, strconv.IsPrint(r), "%q: %U is printable, so go test does not rewrite it", name, r)
	}
	assert.LessOrEqual(t, utf8.RuneCountInString(name), maxNameRunes+4, "%q is bounded", name)
}

func TestSubtestNamesProperties(t *testing.T) {
	long := strings.Repeat("Gène ", 100)   // 500 runes, two bytes each for è
	longCJK := strings.Repeat("遺伝子変異", 60) // 300 runes of three bytes
	names := append([]string{long, long, long + "x", longCJK, longCJK + "!"}, trickyNames...)
	for i := range 12 {
		names = append(names, "Gene lookup") // many duplicates
		names = append(names, fmt.Sprintf("Gene.lookup %d", i%3))
	}

	got := SubtestNames(casesNamed(names...))
	require.Len(t, got, len(names))
	seen := map[string]string{}
	for i, n := range got {
		assertSafeSubtestName(t, n)
		key := strings.ToLower(n)
		if prev, dup := seen[key]; dup {
			t.Errorf("%q (from %q) collides with %q", n, names[i], prev)
		}
		seen[key] = n
	}
	assert.Equal(t, maxNameRunes, utf8.RuneCountInString(got[3]), "long names are cut at the bound")
	assert.True(t, strings.HasPrefix(longCJK, got[3]))
	assert.Equal(t, got[3]+"_2", got[4], "a name equal to a cut one once cut gets a suffix")
	assert.True(t, strings.HasPrefix(long, strings.ReplaceAll(got[0], "_", " ")), "a cut name is a prefix of the case name")
	assert.Equal(t, got[0]+"_2", got[1])
}

// TestSubtestNamesRunAlone builds a real test binary whose subtests carry
// the names SubtestNames produced, and checks that the -run patterns IDEs
// send select exactly the one subtest clicked.
func TestSubtestNamesRunAlone(t *testing.T) {
	t.Parallel()
	subtests := SubtestNames(casesNamed(trickyNames...))

	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package probe\n\nimport \"testing\"\n\nvar names = []string{\n")
	for _, n := range subtests {
		src.WriteString("\t" + strconv.Quote(n) + ",\n")
	}
	src.WriteString("}\n\nfunc TestX(t *testing.T) {\n\tfor _, n := range names {\n\t\tt.Run(n, func(t *testing.T) {})\n\t}\n}\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module probe\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "probe_test.go"), []byte(src.String()), 0o644))

	bin := filepath.Join(dir, "probe.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go test -c: %s", out)

	passed := regexp.MustCompile(`--- PASS: TestX/(\S+) \(`)
	run := func(t *testing.T, pattern string) []string {
		t.Helper()
		cmd := exec.Command(bin, "-test.run", pattern, "-test.v")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s -test.run %s: %s", bin, pattern, out)
		var ran []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if m := passed.FindStringSubmatch(sc.Text()); m != nil {
				ran = append(ran, m[1])
			}
		}
		return ran
	}

	// Every subtest runs under its own name: go test did not rewrite or
	// number any of them.
	require.Equal(t, subtests, run(t, "^TestX$"))

	for i, name := range subtests {
		t.Run(name, func(t *testing.T) {
			vscode := "^TestX$/^" + name + "$"
			goland := `^\QTestX\E$/^\Q` + name + `\E$`
			for _, pattern := range []string{vscode, goland} {
				assert.Equal(t, []string{name}, run(t, pattern), "case %q, pattern %s", trickyNames[i], pattern)
			}
		})
	}

	// The check above does see a pattern that selects more than one: an
	// unanchored pattern, as typed by hand, also runs "alias Gene lookup".
	var containing []string
	for _, n := range subtests {
		if strings.Contains(n, "Gene_lookup") {
			containing = append(containing, n)
		}
	}
	require.Greater(t, len(containing), 2)
	assert.Equal(t, containing, run(t, "TestX/Gene_lookup"))
}

func TestFuncName(t *testing.T) {
	tests := []struct{ category, want string }{
		{"Gene and Variant Utilities", "TestGeneAndVariantUtilities"},
		{"gene-phenotype databases", "TestGenePhenotypeDatabases"},
		{"test_cases", "TestTestCases"},
		{"Gène für Ärzte", "TestGneFrRzte"},
		{"日本語 cases", "TestCases"},
		{"dbNSFP scores", "TestDbNSFPScores"},
		{"2024 regression", "Test2024Regression"},
		{"  spaced   out  ", "TestSpacedOut"},
		{"", "Test"},
	}
	identifier := regexp.MustCompile(`^Test(?:[A-Z0-9][A-Za-z0-9]*)?$`)
	for _, tt := range tests {
		t.Run(tt.category, func(t *testing.T) {
			got := FuncName(tt.category)
			assert.Equal(t, tt.want, got)
			assert.Regexp(t, identifier, got, "a Go test function name go test recognises")
		})
	}
}
