package testname

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
)

// trickyNames are case names that trip up go test's -run matching.
var trickyNames = []string{
	"Gene lookup", "alias Gene lookup", "Gene lookup", "gene lookup", "Gene lookup_2",
	"a/b", "a.b", "a+b", "A/B", "x (1)", "x", "x#01", "Gene for NM_001045477.4:c.187C>T",
	"$^.*?|[](){}\\", "", "case", "ünïcödé name", "日本語のケース", "tab\tand\nnewline", "trailing space ",
}

func TestSubtests(t *testing.T) {
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
			assert.Equal(t, tt.want, Subtests(tt.cases))
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

func TestSubtestsProperties(t *testing.T) {
	long := strings.Repeat("Gène ", 100)   // 500 runes, two bytes each for è
	longCJK := strings.Repeat("遺伝子変異", 60) // 300 runes of three bytes
	names := append([]string{long, long, long + "x", longCJK, longCJK + "!"}, trickyNames...)
	for i := range 12 {
		names = append(names, "Gene lookup") // many duplicates
		names = append(names, fmt.Sprintf("Gene.lookup %d", i%3))
	}

	got := Subtests(names)
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

// TestSubtestsRunAlone builds a real test binary whose subtests carry
// the names Subtests produced, and checks that the -run patterns IDEs
// send select exactly the one subtest clicked.
func TestSubtestsRunAlone(t *testing.T) {
	t.Parallel()
	subtests := Subtests(trickyNames)

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
			got := Func(tt.category)
			assert.Equal(t, tt.want, got)
			assert.Regexp(t, identifier, got, "a Go test function name go test recognises")
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		test string
		want Name
	}{
		{"TestGeneMagic/spell", Name{Func: "TestGeneMagic", Case: "spell"}},
		{"TestGeneMagic/spell/gpt-4o", Name{Func: "TestGeneMagic", Case: "spell", Arm: "gpt-4o"}},
		{"TestOtherCategories/Gene_Magic/spell", Name{Func: Other, Category: "Gene_Magic", Case: "spell"}},
		{"TestOtherCategories/Gene_Magic/spell/no_server", Name{Func: Other, Category: "Gene_Magic", Case: "spell", Arm: "no_server"}},
	}
	for _, tt := range tests {
		t.Run(tt.test, func(t *testing.T) {
			got, err := Parse(tt.test)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.test, got.String(), "a parsed name gives the same test name back")
		})
	}
	for _, bad := range []string{"", "TestX", "TestOtherCategories/Gene_Magic", "TestX/a/b/c", "TestOtherCategories/G/a/b/c", "TestX//a", "/a"} {
		_, err := Parse(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// TestPatternSelectsExactlyTheNamedRuns builds a real test binary laid
// out as a suite is (categories with a function of their own and under
// TestOtherCategories, cases with and without arms, names that are
// prefixes of others) and checks that go test, given Pattern's -run,
// runs exactly the named case runs, for every subset of a few.
func TestPatternSelectsExactlyTheNamedRuns(t *testing.T) {
	t.Parallel()
	src := `package probe

import "testing"

func leaves(t *testing.T, cases []string, arms []string) {
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			for _, a := range arms {
				t.Run(a, func(t *testing.T) {})
			}
		})
	}
}

func TestGene(t *testing.T)      { leaves(t, []string{"a", "a_2", "b"}, nil) }
func TestGeneMagic(t *testing.T) { leaves(t, []string{"a", "c"}, []string{"x", "x_2"}) }
func TestOtherCategories(t *testing.T) {
	t.Run("Odd", func(t *testing.T) { leaves(t, []string{"a", "d"}, nil) })
	t.Run("Odd_2", func(t *testing.T) { leaves(t, []string{"a"}, []string{"x", "y"}) })
}
`
	bin := buildProbe(t, src)
	all := []Name{
		{Func: "TestGene", Case: "a"}, {Func: "TestGene", Case: "a_2"}, {Func: "TestGene", Case: "b"},
		{Func: "TestGeneMagic", Case: "a", Arm: "x"}, {Func: "TestGeneMagic", Case: "a", Arm: "x_2"},
		{Func: "TestGeneMagic", Case: "c", Arm: "x"}, {Func: "TestGeneMagic", Case: "c", Arm: "x_2"},
		{Func: Other, Category: "Odd", Case: "a"}, {Func: Other, Category: "Odd", Case: "d"},
		{Func: Other, Category: "Odd_2", Case: "a", Arm: "x"}, {Func: Other, Category: "Odd_2", Case: "a", Arm: "y"},
	}
	// Every leaf runs under the name Name gives it.
	var every []string
	for _, n := range all {
		every = append(every, n.String())
	}
	require.ElementsMatch(t, every, ranLeaves(t, bin, "."))

	subsets := [][]int{{0}, {1}, {3}, {7}, {10}, {0, 7}, {2, 4, 8}, {3, 6, 9, 10}, {1, 5, 8, 9}}
	for _, subset := range subsets {
		var names []Name
		var want []string
		for _, i := range subset {
			names = append(names, all[i])
			want = append(want, all[i].String())
		}
		pattern := Pattern(append(names, names[0])) // a duplicate changes nothing
		assert.ElementsMatch(t, want, ranLeaves(t, bin, pattern), "-run %s", pattern)
	}
}

// buildProbe builds a test binary of a module whose only file is src.
func buildProbe(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module probe\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "probe_test.go"), []byte(src), 0o644))
	bin := filepath.Join(dir, "probe.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go test -c: %s", out)
	return bin
}

// ranLeaves runs the probe with -run pattern and returns the tests that
// passed and ran no subtest.
func ranLeaves(t *testing.T, bin, pattern string) []string {
	t.Helper()
	out, err := exec.Command(bin, "-test.run", pattern, "-test.v").CombinedOutput()
	require.NoError(t, err, "-test.run %s: %s", pattern, out)
	passed := regexp.MustCompile(`--- PASS: (\S+) \(`)
	var ran []string
	parents := map[string]bool{}
	for _, m := range passed.FindAllStringSubmatch(string(out), -1) {
		ran = append(ran, m[1])
		for p := m[1]; strings.Contains(p, "/"); {
			p = p[:strings.LastIndex(p, "/")]
			parents[p] = true
		}
	}
	var leaves []string
	for _, r := range ran {
		if !parents[r] {
			leaves = append(leaves, r)
		}
	}
	return leaves
}
