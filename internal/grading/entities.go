package grading

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// entity kinds found in tool-case questions.
const (
	entityGene       = "gene"       // NUTM2G, TP53
	entityHGVS       = "hgvs"       // NM_001045477.4:c.187C>T
	entityProtein    = "protein"    // p.P63S, p.Pro63Ser, R175H
	entityRSID       = "rsid"       // rs121913529
	entityCoordinate = "coordinate" // Chr9:99694174
	entityHPO        = "hpo"        // HP:0001250
	entityMIM        = "mim"        // MIM:191170, OMIM 191170
	entityEntrez     = "entrez"     // Entrez ID 7157
	entityTerm       = "term"       // 'haemolytic anaemia', Rett syndrome
	entityNumber     = "number"     // any other number
)

// Entity is something a question names that a tool call should carry on.
type Entity struct {
	// Text is the entity as the question writes it; Kind is one of gene,
	// hgvs, protein, rsid, coordinate, hpo, mim, entrez, term and number.
	Text, Kind string
	key        string // canonical form, compared with canonical argument atoms
}

// notGenes are upper-case words of genetics questions that are databases,
// methods or units, not gene symbols.
var notGenes = []string{"DNA", "RNA", "MRNA", "CDNA", "OMIM", "MIM", "HPO", "HGVS", "CADD", "REVEL",
	"SIFT", "DGV", "DECIPHER", "DIOPT", "GTEX", "GNOMAD", "CLINVAR", "DBSNP", "DBNSFP", "NCBI",
	"PMID", "PMC", "LOF", "ID", "IDS", "ACMG", "VUS", "SNP", "SNV", "CNV", "GWAS", "HG19", "HG38",
	"GRCH37", "GRCH38", "MARRVEL", "API", "JSON", "GO", "MGI", "ZFIN", "RGD", "II", "III", "IV",
	"UK", "USA", "OK", "FAQ", "PDF", "URL", "AND", "OR", "NOT", "TPM", "RPKM", "GENE", "MAF", "AF",
	"STRING", "LOEUF", "PHAROS", "GENO2MP", "PLI", "TDL"}

// aminoAcids maps three-letter amino-acid codes to one letter.
var aminoAcids = map[string]string{"ala": "a", "arg": "r", "asn": "n", "asp": "d", "cys": "c",
	"gln": "q", "glu": "e", "gly": "g", "his": "h", "ile": "i", "leu": "l", "lys": "k", "met": "m",
	"phe": "f", "pro": "p", "ser": "s", "thr": "t", "trp": "w", "tyr": "y", "val": "v", "ter": "*"}

// FindEntities returns the entities a question names: gene symbols (a
// model organism's too, such as Trp53), HGVS variants, protein changes,
// rsIDs, chromosome positions, HPO terms, MIM numbers, Entrez ids, terms
// in quotes ('haemolytic anaemia'), named syndromes and diseases (Rett
// syndrome) and other numbers. Each appears once.
func FindEntities(question string) []Entity {
	out := findTerms(question)
	raw := strings.Fields(question)
	for i, field := range raw {
		text := trimToken(field)
		if text == "" {
			continue
		}
		kind, key := classifyEntity(text)
		if kind == entityNumber {
			kind = numberKind(raw[max(0, i-3):i])
		}
		if kind == "" || slices.ContainsFunc(out, func(e Entity) bool { return e.key == key }) {
			continue
		}
		out = append(out, Entity{Text: text, Kind: kind, key: key})
	}
	return out
}

// trimToken strips the punctuation around a word of running text.
func trimToken(s string) string {
	return strings.TrimRight(strings.TrimLeft(s, "([{\"'#"), ")]}\"'?.,;:!")
}

// classifyEntity returns the kind and canonical key of one word, or "" when
// it is no entity.
func classifyEntity(text string) (kind, key string) {
	low := strings.ToLower(text)
	switch {
	case strings.HasPrefix(low, "hp:") && isDigits(low[3:]):
		return entityHPO, low
	case strings.HasPrefix(low, "mim:") && isDigits(low[4:]), strings.HasPrefix(low, "omim:") && isDigits(low[5:]):
		return entityMIM, low[strings.Index(low, ":")+1:]
	case strings.HasPrefix(low, "rs") && isDigits(low[2:]):
		return entityRSID, low
	case isHGVS(low):
		return entityHGVS, low
	}
	if c, ok := canonicalCoordinate(low); ok {
		return entityCoordinate, c
	}
	if p, ok := canonicalProtein(text); ok {
		return entityProtein, p
	}
	if n, ok := CanonicalNumber(text); ok {
		return entityNumber, n
	}
	if isGeneSymbol(text) || modelOrganismSymbol.MatchString(text) {
		return entityGene, low
	}
	return "", ""
}

// modelOrganismSymbol matches a gene symbol of mouse, rat or fish style:
// an upper-case letter, lower-case letters and a number (Trp53, Brca1).
var modelOrganismSymbol = regexp.MustCompile(`^[A-Z][a-z]{1,6}[0-9]{1,3}[a-z]?$`)

// quotedTerm matches a phrase in quotes; namedCondition a syndrome or
// disease named after a word (Rett syndrome, Alzheimer's disease).
var (
	quotedTerm     = regexp.MustCompile(`(?:^|[\s(])['"‘“]([^'"’”]{2,80}?)['"’”](?:$|[\s?.,;:!)])`)
	namedCondition = regexp.MustCompile(`\b([A-Z][a-z]+(?:'s)?) (syndrome|disease)\b`)
)

// findTerms returns the phrases a question names as a whole: terms in
// quotes and named syndromes or diseases.
func findTerms(question string) []Entity {
	var out []Entity
	addTerm := func(text string) {
		key := phraseKey(text)
		if key != "" && !slices.ContainsFunc(out, func(e Entity) bool { return e.key == key }) {
			out = append(out, Entity{Text: text, Kind: entityTerm, key: key})
		}
	}
	for _, m := range quotedTerm.FindAllStringSubmatch(question, -1) {
		addTerm(strings.TrimSpace(m[1]))
	}
	for _, m := range namedCondition.FindAllStringSubmatch(question, -1) {
		if !slices.Contains([]string{"Which", "What", "The", "This", "That", "A", "An", "Each", "Any"}, m[1]) {
			addTerm(m[0])
		}
	}
	return out
}

// phraseKey is a phrase in lower case, its words separated by one space,
// punctuation other than apostrophes and hyphens dropped.
func phraseKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-')
	}), " ")
}

// numberKind names a number by the words before it: "Entrez ID 7157",
// "OMIM 191170".
func numberKind(before []string) string {
	for _, w := range before {
		switch strings.ToLower(trimToken(w)) {
		case "entrez":
			return entityEntrez
		case "mim", "omim":
			return entityMIM
		}
	}
	return entityNumber
}

func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// isHGVS reports whether a lower-cased word is an HGVS variant: a reference
// sequence and ":c." (or g., n., m., r., p.) description, or a bare "c.187c>t".
func isHGVS(low string) bool {
	desc := low
	if i := strings.Index(low, ":"); i > 0 {
		desc = low[i+1:]
	}
	if len(desc) < 3 || desc[1] != '.' || !strings.ContainsRune("cgnmrp", rune(desc[0])) {
		return false
	}
	if desc[0] == 'p' && desc == low {
		return false // a bare p. change is a protein change
	}
	r := rune(desc[2])
	return unicode.IsDigit(r) || r == '*' || r == '-' || r == '(' || unicode.IsLetter(r) && desc[0] == 'p'
}

// canonicalCoordinate rewrites "chr9:99694174", "Chr9:99,694,174" or
// "9:99694174" as "9:99694174" (a chromosome and a position of at least three
// digits; a range keeps its start).
func canonicalCoordinate(low string) (string, bool) {
	chrom, pos, ok := strings.Cut(low, ":")
	if !ok {
		return "", false
	}
	chrom, hasPrefix := strings.CutPrefix(chrom, "chr")
	pos, _, _ = strings.Cut(strings.ReplaceAll(pos, ",", ""), "-")
	if !isChromosome(chrom) || !isDigits(pos) || len(pos) < 3 && !hasPrefix {
		return "", false
	}
	return canonicalChromosome(chrom) + ":" + strings.TrimLeft(pos, "0"), true
}

func isChromosome(c string) bool {
	if n, err := strconv.Atoi(c); err == nil {
		return n >= 1 && n <= 22
	}
	return c == "x" || c == "y" || c == "m" || c == "mt"
}

func canonicalChromosome(c string) string {
	if c == "mt" {
		return "m"
	}
	return c
}

// canonicalProtein rewrites a protein change ("p.P63S", "p.(Pro63Ser)",
// "P63S") in one-letter lower case form ("p63s").
func canonicalProtein(text string) (string, bool) {
	low := strings.ToLower(text)
	bare, prefixed := strings.CutPrefix(low, "p.")
	bare = strings.Trim(bare, "()")
	lead := strings.IndexFunc(bare, unicode.IsDigit)
	tail := strings.LastIndexFunc(bare, unicode.IsDigit) + 1
	if lead <= 0 || tail >= len(bare) || !isDigits(bare[lead:tail]) {
		return "", false
	}
	from, to := bare[:lead], bare[tail:]
	if len(from) == 3 && len(to) == 3 && aminoAcids[from] != "" && aminoAcids[to] != "" {
		from, to = aminoAcids[from], aminoAcids[to]
	}
	if len(from) != 1 || len(to) != 1 || !unicode.IsLetter(rune(from[0])) ||
		!(unicode.IsLetter(rune(to[0])) || to == "*") {
		return "", false
	}
	// Without "p." only the upper-case one-letter form (R175H) counts.
	if !prefixed && (text != strings.ToUpper(text) || len(bare) != len(text)) {
		return "", false
	}
	return from + bare[lead:tail] + to, true
}

// isGeneSymbol reports whether a word looks like a human gene symbol: two to
// fifteen upper-case letters, digits or hyphens, starting with a letter, and
// not a known database or method name.
func isGeneSymbol(text string) bool {
	if len(text) < 2 || len(text) > 15 || !unicode.IsUpper(rune(text[0])) || slices.Contains(notGenes, text) {
		return false
	}
	for _, r := range text {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Atoms is what entities are compared with: the canonical forms of the
// values, words and parts of words of tool arguments or results, and each
// value as a phrase (see phraseKey). The zero Atoms is empty and ready to
// use.
type Atoms struct {
	atoms   map[string]bool
	phrases []string
}

// ArgumentAtoms returns the atoms of tool arguments: every value, every
// word of every value, the parts of words split at ':', '/', '=' and ',',
// each read as chromosome, number, protein change or coordinate where it
// is one.
func ArgumentAtoms(args map[string]any) Atoms {
	return atomsOf(flattenValues(args))
}

// ResultAtoms returns the atoms of a tool result: of its JSON values, or of
// its text when it is not JSON.
func ResultAtoms(result string) Atoms {
	var v any
	if err := json.Unmarshal([]byte(result), &v); err != nil {
		return atomsOf([]string{result})
	}
	return atomsOf(flattenValues(v))
}

// atomsOf returns the atoms of values (see ArgumentAtoms).
func atomsOf(values []string) Atoms {
	set := Atoms{atoms: map[string]bool{}}
	add := func(s string) {
		s = trimToken(strings.TrimSpace(s))
		if s == "" {
			return
		}
		low := strings.ToLower(s)
		set.atoms[low] = true
		if c, ok := strings.CutPrefix(low, "chr"); ok && isChromosome(c) {
			set.atoms[canonicalChromosome(c)] = true
		}
		if isChromosome(low) {
			set.atoms[canonicalChromosome(low)] = true
		}
		if c, ok := CanonicalNumber(s); ok {
			set.atoms[c] = true
		}
		if c, ok := canonicalProtein(s); ok {
			set.atoms[c] = true
		}
		if c, ok := canonicalCoordinate(low); ok {
			set.atoms[c] = true
		}
	}
	for _, v := range values {
		add(v)
		if p := phraseKey(v); p != "" {
			set.phrases = append(set.phrases, " "+p+" ")
		}
		for _, w := range strings.Fields(v) {
			add(w)
			for _, part := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(":/=,", r) }) {
				add(part)
			}
		}
	}
	return set
}

// Merge adds the atoms and phrases of o.
func (a *Atoms) Merge(o Atoms) {
	if a.atoms == nil {
		a.atoms = map[string]bool{}
	}
	for k := range o.atoms {
		a.atoms[k] = true
	}
	a.phrases = append(a.phrases, o.phrases...)
}

// flattenValues returns every scalar in a JSON-like value as text.
func flattenValues(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	case map[string]any:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = append(out, flattenValues(x[k])...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, flattenValues(e)...)
		}
		return out
	default:
		return []string{fmt.Sprint(x)}
	}
}

// Found reports whether the entity is among the atoms. A position also
// matches when its chromosome and position are separate values; a term
// matches a value that holds its words in order.
func (e Entity) Found(set Atoms) bool {
	if set.atoms[e.key] {
		return true
	}
	switch e.Kind {
	case entityCoordinate:
		chrom, pos, _ := strings.Cut(e.key, ":")
		return set.atoms[chrom] && set.atoms[pos]
	case entityTerm:
		return slices.ContainsFunc(set.phrases, func(p string) bool { return strings.Contains(p, " "+e.key+" ") })
	}
	return false
}

// Identifies is true for the entities a tool result can tie to what a
// call asked for (a gene to its Entrez id, a variant to its gene): every
// kind but plain numbers, which results hold by the hundred.
func (e Entity) Identifies() bool { return e.Kind != entityNumber }
