// Package docs checks the project's Markdown pages (README.md and docs/):
// every relative link leads to a file of the repository and, with a
// fragment, to a heading of that page, so that moving or renaming a page
// or a heading cannot leave a dead link behind. Its tests hold the pages'
// fenced blocks to what they show: the commands run, their output is what
// the pages print, the files load and the code is the code.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// link matches a Markdown link's target: ](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// heading matches a Markdown heading.
var heading = regexp.MustCompile(`^#{1,6} (.+)$`)

// BrokenLinks lists the relative links of the Markdown pages that lead
// nowhere, as "page:line: target (why)". Links with a scheme (https:) are
// not followed; text inside code blocks is not a link.
func BrokenLinks(pages []string) ([]string, error) {
	var out []string
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			return nil, err
		}
		code := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				code = !code
			}
			if code {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(stripCode(line), -1) {
				if why := check(page, m[1]); why != "" {
					out = append(out, fmt.Sprintf("%s:%d: %s (%s)", page, i+1, m[1], why))
				}
			}
		}
	}
	return out, nil
}

// inlineCode matches an inline code span, whose brackets are no link.
var inlineCode = regexp.MustCompile("`[^`]*`")

// stripCode removes inline code spans, whose brackets are not links.
func stripCode(line string) string { return inlineCode.ReplaceAllString(line, "") }

// Pages are the project's Markdown pages below the module root: README.md
// and docs/*.md.
func Pages(root string) ([]string, error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append(pages, filepath.Join(root, "README.md")), nil
}

// check says why a link of page leads nowhere, or gives "".
func check(page, target string) string {
	if strings.Contains(target, ":") && !strings.HasPrefix(target, "#") {
		return "" // https:, mailto:, data: ...
	}
	path, fragment, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
	}
	info, err := os.Stat(file)
	if err != nil {
		return "no such file"
	}
	if fragment == "" || info.IsDir() || !strings.HasSuffix(file, ".md") {
		return ""
	}
	anchors, err := Anchors(file)
	if err != nil {
		return err.Error()
	}
	if !anchors[fragment] {
		return "no such heading in " + filepath.Base(file)
	}
	return ""
}

// Anchors are the fragments the headings of a Markdown page give, as
// GitHub makes them: lower case, spaces as '-', punctuation dropped.
func Anchors(page string) (map[string]bool, error) {
	data, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	code := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if m := heading.FindStringSubmatch(line); m != nil && !code {
			anchors[Anchor(m[1])] = true
		}
	}
	return anchors, nil
}

// Anchor is the fragment GitHub gives a heading.
func Anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Block is a fenced code block of a Markdown page. Its fence names its
// kind and may name a file: a block opened with "```yaml arms.yaml" is
// the file arms.yaml, which the page's commands use.
type Block struct {
	Page string
	Line int // of its opening fence
	Lang string
	File string
	Text string
}

// Blocks returns the fenced code blocks of the pages.
func Blocks(pages []string) ([]Block, error) {
	var out []Block
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			return nil, err
		}
		var cur *Block
		for i, line := range strings.Split(string(data), "\n") {
			switch {
			case cur == nil && strings.HasPrefix(line, "```"):
				cur = &Block{Page: page, Line: i + 1}
				info := strings.Fields(strings.Trim(line, "`"))
				if len(info) > 0 {
					cur.Lang = info[0]
				}
				if len(info) > 1 {
					cur.File = info[1]
				}
			case cur != nil && strings.HasPrefix(line, "```"):
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.Text += line + "\n"
			}
		}
	}
	return out, nil
}
