package sampleserver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// build is a human genome assembly.
type build string

const (
	hg19 build = "hg19"
	hg38 build = "hg38"
)

// parseBuild accepts hg19/GRCh37 and hg38/GRCh38 (any case); empty means hg19.
func parseBuild(s string) (build, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "hg19", "grch37":
		return hg19, nil
	case "hg38", "grch38":
		return hg38, nil
	}
	return "", fmt.Errorf("build must be \"hg19\" (GRCh37, the default) or \"hg38\" (GRCh38); got %q", s)
}

var chromosomePattern = regexp.MustCompile(`^(?i:chr)?([1-9]|1[0-9]|2[0-2]|X|Y|MT?)$`)

// parseChromosome normalises "chr9", "9" or "x" to "9" / "X".
func parseChromosome(s string) (string, error) {
	m := chromosomePattern.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		return "", fmt.Errorf("chromosome must be 1-22, X, Y or MT, with or without a \"chr\" prefix (e.g. \"9\" or \"chr9\"); got %q", s)
	}
	if m[1] == "M" {
		return "MT", nil
	}
	return m[1], nil
}

// parsePosition parses a 1-based genomic position given as a string.
func parsePosition(s string) (int, error) {
	p, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(s), ",", ""))
	if err != nil || p < 1 {
		return 0, fmt.Errorf("pos must be a positive whole number such as \"99694174\"; got %q", s)
	}
	return p, nil
}

var allelePattern = regexp.MustCompile(`^[ACGT]+$`)

// parseAllele checks a reference or alternate allele (DNA bases).
func parseAllele(name, s string) (string, error) {
	a := strings.ToUpper(strings.TrimSpace(s))
	if !allelePattern.MatchString(a) {
		return "", fmt.Errorf("%s must be DNA bases (A, C, G, T) such as \"C\"; got %q", name, s)
	}
	return a, nil
}

// parseEntrezID parses an NCBI Gene ID given as a string.
func parseEntrezID(name, s string) (int, error) {
	id, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%s must be a numeric NCBI Entrez Gene ID such as \"441457\"; got %q. Use get_gene_by_symbol to find the ID of a gene symbol", name, s)
	}
	return id, nil
}

// hgvsVariant is a parsed HGVS substitution.
type hgvsVariant struct {
	Accession string // without version, e.g. NM_001045477
	Version   string // may be empty
	Kind      string // "c" or "g"
	Position  int    // 0 when the variant is not a plain substitution
	Ref, Alt  string
}

const hgvsExample = "NM_000000.0:c.123A>G (a RefSeq transcript, \":c.\", position, reference base, \">\", alternate base; e.g. NM_001045477.4:c.187C>T)"

var (
	hgvsShape        = regexp.MustCompile(`^([A-Z]{2}_\d+)(?:\.(\d+))?(?:\([A-Za-z0-9-]+\))?:([cgnmrp])\.(.+)$`)
	hgvsSubstitution = regexp.MustCompile(`^(\d+)([ACGT])>([ACGT])$`)
	// other well-formed edits: intronic/UTR offsets, deletions, duplications, insertions
	hgvsOtherEdit = regexp.MustCompile(`^[-*]?\d+(?:[+-]\d+)?(?:_[-*]?\d+(?:[+-]\d+)?)?(?:[ACGT]>[ACGT]|del[ACGT]*|dup[ACGT]*|ins[ACGT]+|delins[ACGT]+)$`)
)

// parseHGVS parses c. and g. HGVS variants. A well-formed variant that is not
// a plain coding/genomic substitution parses with Position 0.
func parseHGVS(s string) (hgvsVariant, error) {
	in := strings.TrimSpace(s)
	m := hgvsShape.FindStringSubmatch(in)
	if m == nil {
		return hgvsVariant{}, fmt.Errorf("malformed HGVS variant %q: expected the form %s", s, hgvsExample)
	}
	v := hgvsVariant{Accession: m[1], Version: m[2], Kind: m[3]}
	switch v.Kind {
	case "p":
		return hgvsVariant{}, fmt.Errorf("%q is a protein change; this tool converts DNA-level HGVS (%s). Use convert_protein_variant for protein changes such as NUTM2G:p.P63S", s, hgvsExample)
	case "c", "g":
	default:
		return v, nil // n./m./r. notations: well-formed, never in the sample data
	}
	if sub := hgvsSubstitution.FindStringSubmatch(m[4]); sub != nil {
		v.Position, _ = strconv.Atoi(sub[1])
		v.Ref, v.Alt = sub[2], sub[3]
		return v, nil
	}
	if hgvsOtherEdit.MatchString(m[4]) {
		return v, nil
	}
	return hgvsVariant{}, fmt.Errorf("malformed HGVS variant %q: the part after %q is not a valid edit; expected the form %s", s, v.Kind+".", hgvsExample)
}

// refSeqChromosomes maps GRCh37 and GRCh38 RefSeq chromosome accessions of
// the chromosomes in the sample data to chromosome and build.
var refSeqChromosomes = map[string]struct {
	chr string
	b   build
}{
	"NC_000007.13": {"7", hg19}, "NC_000007.14": {"7", hg38},
	"NC_000009.11": {"9", hg19}, "NC_000009.12": {"9", hg38},
	"NC_000013.10": {"13", hg19}, "NC_000013.11": {"13", hg38},
	"NC_000017.10": {"17", hg19}, "NC_000017.11": {"17", hg38},
	"NC_000023.10": {"X", hg19}, "NC_000023.11": {"X", hg38},
}

// proteinChange is a parsed protein-level variant such as NUTM2G:p.P63S.
type proteinChange struct {
	Gene  string
	Short string // normalised one-letter form, e.g. p.P63S or p.R168*
}

const proteinExample = "GENE:p.X123Y with the gene symbol, e.g. NUTM2G:p.P63S or NUTM2G:p.Pro63Ser"

var proteinPattern = regexp.MustCompile(`^([A-Za-z0-9-]+)\s*[: ]\s*p\.\(?([A-Z][a-z]{2}|[A-Z])(\d+)([A-Z][a-z]{2}|[A-Z*])\)?$`)

var threeToOne = map[string]string{
	"Ala": "A", "Arg": "R", "Asn": "N", "Asp": "D", "Cys": "C", "Gln": "Q", "Glu": "E", "Gly": "G", "His": "H", "Ile": "I",
	"Leu": "L", "Lys": "K", "Met": "M", "Phe": "F", "Pro": "P", "Ser": "S", "Thr": "T", "Trp": "W", "Tyr": "Y", "Val": "V",
	"Ter": "*",
}

func parseProteinChange(s string) (proteinChange, error) {
	m := proteinPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return proteinChange{}, fmt.Errorf("malformed protein variant %q: expected the form %s", s, proteinExample)
	}
	from, err := oneLetter(m[2])
	if err != nil {
		return proteinChange{}, fmt.Errorf("malformed protein variant %q: %w; expected the form %s", s, err, proteinExample)
	}
	to, err := oneLetter(m[4])
	if err != nil {
		return proteinChange{}, fmt.Errorf("malformed protein variant %q: %w; expected the form %s", s, err, proteinExample)
	}
	return proteinChange{Gene: m[1], Short: "p." + from + m[3] + to}, nil
}

func oneLetter(aa string) (string, error) {
	if len(aa) == 3 {
		if one, ok := threeToOne[aa]; ok {
			return one, nil
		}
		return "", fmt.Errorf("unknown amino acid %q", aa)
	}
	if aa == "X" {
		return "*", nil
	}
	if aa == "*" || strings.Contains("ARNDCQEGHILKMFPSTWYV", aa) {
		return aa, nil
	}
	return "", fmt.Errorf("unknown amino acid %q", aa)
}

var hpoIDPattern = regexp.MustCompile(`^HP:\d{7}$`)

var rsidPattern = regexp.MustCompile(`^(?i:rs)?(\d+)$`)
