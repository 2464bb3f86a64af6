// Package grading decides whether an answer is right: the deterministic
// checks of a case (its answer checks and its tool expectations), the
// judges and the reading of their replies, and the reading of free text
// they share.
//
// The text reading (Parse, Numbers, Find, Judge) reads English as a careful
// person would: which words a negation or a contrast takes back ("STRING
// has no record of an interaction", "not p.P63S but p.P63L"), which
// sentences only ask, which subject a value belongs to ("0.35 is
// MECP2's"), which values are offered as alternatives ("either 0.35 or
// 0.74"), the numbers a text states in every common form ("10 452",
// "ninety-nine", "164k", "2.7 × 10^-2") and whether a text judges an
// answer right or wrong, in the languages judges answer in.
//
// The checks (CheckAnswer, CheckTools) read the answer through it; the
// judges (Panel.Judge) are asked when the checks leave the verdict open.
// The rules are general (a scope per clause, a lexicon of negators and of
// judgement words), not patterns of particular answers; what they cannot
// tell, they leave to the judge.
//
// It also reads the questions for the metrics of package scoring: the
// columns, filters, groupings, sort orders, rankings and joins a question
// about tables asks for (ParseQuestion), the genes, variants, positions and
// ids a tool-case question names (FindEntities), and keywords as whole
// words and phrases, never as substrings (Words, Phrases, HasPhrase).
package grading
