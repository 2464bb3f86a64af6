// Package scoring computes the six metrics of an evaluated case, as pure
// functions of what the case produced (no I/O, no state). Every score is a
// number in [0, 1].
//
// Two kinds of case are scored. A code case is a question about a table
// answered with pandas code (ScoreCode); a tool case is a question answered by
// an agent through MCP tool calls (ScoreTool).
//
//   - codeCorrectness (weight 0.25). Code: 0.25 parses + 0.25 runs + 0.5 result
//     matches the expected answer. Tool: the verdict, 1 or 0.
//   - codeQuality (0.20, code only). 0.3 syntax valid + 0.3 safety + 0.2
//     readability + 0.2 imports limited to analysis modules.
//   - codePerformance (0.15). Code: the CPU time of the code's own execution
//     as the server reports it, guessed time and space complexity, short code,
//     ran. Tool: time, tokens and tool calls against a budget, each 1.0
//     within it.
//   - Prompt understanding (0.15). Code: 0.4 column extraction + 0.3
//     natural-language phrasings + 0.3 statistical operations. Tool: share of
//     the question's entities (genes, variants, positions, ids, numbers) that
//     reach the tool arguments.
//   - Requirement coverage (0.15). Code: 0.3 filters + 0.3 group-by columns +
//     0.2 sorting + 0.2 joins. Tool: expected tools called and required facts
//     present in the answer.
//   - Error recovery (0.10). 0.5 × successful recoveries / attempts + 0.3 mean
//     fix quality + 0.2 min(attempts/3, 1), counted from the first failure; no
//     error scores 1.0.
//
// For code cases, understanding and coverage compare the question, read with
// keyword lists and a few rules by package internal/grading
// (grading.ParseQuestion), with what the code does as the server read it
// from the code's syntax tree (eval.CodeFacts, made with Python's own ast by
// the bundled server's worker); without that reading they are not
// applicable. For tool cases, the question's entities are found by
// grading.FindEntities.
//
// The overall score weighs the applicable metrics and renormalises the
// weights over them; eval.OverallMetric lists the weights used and the metrics
// left out. Keywords are matched as whole words and phrases, never as
// substrings: "or" does not fire inside "for", nor "sum" inside "summary".
package scoring
