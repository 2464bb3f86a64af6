package grading

// The checks decide only what they are sure of (see sure.go). A clause
// states a value plainly when every word in it is accounted for: a word of
// the question or of the expected answer, a word of the case's checks, or
// one of the neutral words below, which say nothing of a value's truth.
// Every other word may take the value back, qualify it or give it to
// something else; the words listed as take-backs always do, wherever in
// the sentence they stand.

// neutralWords are words an answer may put around a value without saying
// anything about it: function words, reporting verbs, and the generic
// nouns of a lookup. None of them negates, hedges, conditions, compares,
// contrasts or dates a statement, names a measure or a unit, or names
// another subject.
var neutralWords = wordSet(
	// articles, determiners, pronouns
	"a", "an", "the", "this", "that", "these", "those", "its", "it", "it's", "they", "them", "their", "there",
	"here", "which", "who", "whose", "what", "each", "both", "all", "every", "he", "she", "his", "her", "i", "we",
	"our", "my", "me", "us", "you", "your", "itself", "one's", "such",
	// prepositions and conjunctions that join, never oppose
	"of", "in", "on", "at", "for", "from", "by", "with", "to", "into", "as", "per", "via", "and", "&", "across",
	"within", "among", "amongst", "respectively", "namely", "i.e", "e.g", "ie", "eg", "etc", "so",
	"then", "also", "too", "just", "exactly", "precisely", "specifically", "both", "together", "overall",
	"thus", "therefore", "hence", "indeed", "clearly", "directly", "only", "yes", "very", "highly", "strongly",
	"x", "y",
	// being and reporting
	"is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "having", "does", "do", "did",
	"show", "shows", "showed", "shown", "showing", "give", "gives", "gave", "given", "giving", "list", "lists",
	"listed", "listing", "report", "reports", "reported", "reporting", "return", "returns", "returned",
	"returning", "state", "states", "stated", "record", "records", "recorded", "contain", "contains",
	"contained", "display", "displays", "displayed", "yield", "yields", "yielded", "provide", "provides",
	"provided", "indicate", "indicates", "indicated", "classify", "classifies", "classified", "classifying",
	"classification", "classifications", "call", "calls", "called", "predict", "predicts", "predicted",
	"prediction", "predictions", "categorize", "categorizes", "categorized", "categorise", "categorises",
	"categorised", "label", "labels", "labeled", "labelled", "annotate", "annotates", "annotated", "assign",
	"assigns", "assigned", "rate", "rates", "rated", "score", "scores", "scored", "scoring", "find", "finds",
	"found", "get", "gets", "got", "according", "based", "using", "use", "uses", "retrieved", "retrieve",
	"obtained", "obtain", "queried", "query", "look", "looked", "lookup", "confirm", "confirms", "confirmed",
	"see", "note", "noted", "measured", "computed", "calculated", "determined", "identified", "identify",
	"identifies", "equals", "equal", "says", "say", "said", "mapped", "maps", "map", "corresponds", "correspond",
	"corresponding", "reads", "read", "came", "comes", "come", "known", "named",
	"designated", "listed", "considered", "tool", "tools", "server", "api", "called", "checked", "check",
	// the generic nouns of a lookup
	"gene", "genes", "variant", "variants", "protein", "proteins", "value", "values", "result", "results", "data",
	"database", "databases", "entry", "entries", "record", "level", "levels", "source", "information", "info",
	"annotation", "annotations", "category", "field", "fields", "output", "response", "answer", "summary",
	"details", "detail", "id", "ids", "identifier", "identifiers", "symbol", "symbols", "name", "names", "key",
	"findings", "finding", "overview", "final", "here's", "following", "note", "status", "type",
	"official", "approved", "gene's", "variant's", "protein's", "human", "homo", "sapiens", "search", "searched",
	"hgnc", "ncbi", "entrez", "marrvel", "gnomad", "clinvar", "dbnsfp", "gtex", "omim", "hpo", "diopt", "string",
	"pharos", "uniprot", "ensembl", "pubmed", "decipher", "geno2mp", "dgv", "mcp",
	// genomic coordinates and notation
	"chromosome", "chr", "position", "pos", "coordinate", "coordinates", "ref", "alt", "linked", "links", "carries",
	"carry", "spans", "spanning", "along", "seen", "tissue", "tissues", "located", "lies", "falls", "sits", "maps",
	"exists", "exist", "existed", "number", "numbers", "count", "counts", "reference", "alternate", "allele", "change", "substitution", "notation", "hgvs",
	"c", "g", "p", "m", "n", "r", "nm", "np", "nc", "transcript", "genomic", "coding", "cdna",
	// amino acids, as in p.Pro63Ser
	"ala", "arg", "asn", "asp", "cys", "gln", "glu", "gly", "his", "ile", "leu", "lys", "met", "phe", "pro",
	"ser", "thr", "trp", "tyr", "val", "ter", "sec", "pyl",
)

// polarityWords are the plain negations whose scope the reader knows (see
// Text.Negated): they set a statement's polarity. Every other negative
// word ("lacks", "ruled out", "far from") is a take-back.
var polarityWords = wordSet("not", "no", "never", "none", "nothing", "cannot", "neither", "nor", "without", "n't", "zero",
	"lack", "lacks", "lacking", "absent", "missing")

// takeBacks are words that may take back, qualify or replace a value
// anywhere in its sentence: contrasts, conditions and counterfactuals,
// hedges, generalisations, changes over time, alternatives, failures to
// find, and the negations that are not plain.
var takeBacks = wordSet(
	// contrast
	"but", "however", "although", "though", "whereas", "while", "whilst", "yet", "nevertheless", "nonetheless",
	"despite", "instead", "rather", "conversely", "unlike", "except", "excluding", "otherwise", "albeit",
	"notwithstanding", "contrary", "contrast", "actually", "correction", "wait",
	// condition and counterfactual
	"if", "unless", "whether", "provided", "assuming", "assume", "suppose", "supposing", "hypothetically",
	"hypothetical", "would", "could", "might", "should", "may", "wouldn't", "couldn't", "shouldn't",
	"hypothesis", "scenario", "imagine",
	// hedge
	"or", "either", "maybe", "perhaps", "possibly", "possible", "probably", "probable", "likely", "unlikely",
	"presumably", "apparently", "seemingly", "roughly", "approximately", "approx", "nearly", "almost",
	"estimated", "estimate", "guess", "suspect", "suggest", "suggests", "suggested", "seems", "seem", "seemed",
	"appear", "appears", "appeared", "appearing",
	"uncertain", "unclear", "unknown", "unsure", "unconfirmed", "unverified", "tentative", "tentatively",
	"potentially", "potential", "believe", "think", "assumed", "candidate", "candidates", "somewhere",
	// generalisation
	"typically", "typical", "usually", "usual", "generally", "general", "often", "commonly", "common",
	"normally", "normal", "frequently", "sometimes", "occasionally", "tends", "tend", "expected", "expect",
	"standard", "default", "example", "instance", "hypothetically", "theory", "theoretically",
	// change over time
	"once", "formerly", "former", "previously", "previous", "earlier", "originally", "initially", "now",
	"longer", "anymore", "later", "subsequently", "until", "obsolete", "outdated", "deprecated", "retired",
	"withdrawn", "renamed", "reclassified", "legacy", "historical", "historically", "prior", "old", "older",
	"newer", "updated", "update", "revised", "superseded", "replaced", "version", "release", "changed",
	// alternatives
	"another", "other", "others", "alternative", "alternatively", "different", "second", "secondary",
	"separate", "unrelated", "vs", "versus", "compared", "relative", "whereas",
	// failures to find, and negations that are not plain
	"unable", "failed", "fail", "fails", "failure", "error", "errors", "unavailable", "unsuccessful",
	"absence", "ruled", "far", "excluded", "exclude",
	"nope", "refuted", "disproven", "disputed", "contradicts", "contradicted", "conflicting", "doubtful",
	"questionable", "incorrect", "wrong", "false", "mistaken", "erroneous", "misattributed",
)

// comparisonWords compare a value with another; they take a value back
// only within its own clause ("8.103, which is below 20" states 8.103).
var comparisonWords = wordSet("than", "higher", "lower", "greater", "less", "fewer", "more", "above", "under",
	"over", "beyond", "exceeds", "exceed", "exceeding", "outside", "below", "threshold", "cutoff", "cut-off",
	"bound", "upper", "minimum", "maximum", "least", "most", "range", "ranges", "between")

// contrastOpeners open a sentence that takes back the one before it:
// "However, that score is for another transcript."
var contrastOpeners = wordSet("however", "but", "although", "though", "yet", "nevertheless", "nonetheless",
	"actually", "correction", "wait", "instead", "alternatively", "unfortunately", "caveat", "caution", "warning")

// qualifierWords say which version of a thing a value is for: a genome
// build, a species, a population or release. A value's clause may hold one
// only when the expected answer (or a check) holds it too; the question's
// own are not enough ("the hg19 position ... on hg38?").
var qualifierWords = wordSet("hg18", "hg19", "hg38", "grch36", "grch37", "grch38", "t2t", "chm13", "build",
	"human", "mouse", "murine", "rat", "zebrafish", "fly", "drosophila", "worm", "elegans", "yeast", "frog", "xenopus",
	"chicken", "dog", "pig", "cow", "monkey", "macaque", "chimpanzee",
	"exome", "exomes", "genome", "genomes", "v2", "v3", "v4", "v2.1", "v3.1", "v4.0", "v4.1",
	"heterozygous", "heterozygotes", "heterozygote", "homozygous", "homozygotes", "homozygote", "hemizygous",
	"canonical", "isoform", "transcript")

// sameQualifier names each qualifier's other spellings: a value the
// expected answer gives for hg19 may be given for GRCh37.
var sameQualifier = func() map[string][]string {
	groups := [][]string{
		{"hg19", "grch37"}, {"hg38", "grch38"}, {"hg18", "grch36"},
		{"human", "homo", "sapiens"}, {"mouse", "murine", "mus", "musculus"}, {"rat", "rattus", "norvegicus"},
		{"zebrafish", "danio", "rerio"}, {"fly", "drosophila", "melanogaster"}, {"worm", "elegans", "caenorhabditis"},
		{"yeast", "cerevisiae", "saccharomyces"}, {"frog", "xenopus"},
		{"exome", "exomes"}, {"genome", "genomes"},
		{"heterozygous", "heterozygotes", "heterozygote"}, {"homozygous", "homozygotes", "homozygote"},
	}
	m := map[string][]string{}
	for _, g := range groups {
		for _, w := range g {
			m[w] = g
		}
	}
	return m
}()
