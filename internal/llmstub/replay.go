package llmstub

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/usersim"
)

// JudgeTool is the tool name through which the suite's judge answers;
// ClaimsTool the one through which it answers about a case's claims.
const (
	JudgeTool  = "submit_verdict"
	ClaimsTool = "submit_claims"
)

// Replay answers like a correct agent: for a known question it makes the
// case's reference calls, one a reply, then answers with the case's
// expected answer when the results hold its numbers and its terms (see
// holdsNumbers and holdsTerms), and otherwise with the text of the successful results,
// as an agent reading data that no longer says what the case expects; as judge it says yes to
// every non-empty answer. Unknown questions get "I do not know.".
//
// A case with turns (eval.Turn) is replayed turn by turn, its turn told by
// the user messages of the request: at each the turn's reference calls,
// then its expected reply (the case's at the last turn) when the results of
// the conversation so far hold it, else the text of the turn's own
// successful results; the reply to the input is the case's first reply
// (eval.Case.FirstReply) when it has one.
//
// In a case with a simulated user (eval.User) it first gives the case's
// expected first reply, when it has one, and asks for what the user
// knows and has not given (usersim.Question), then makes the case's
// reference calls and answers as above. Asked to play the user (see
// usersim.Plays), it plays them as usersim.Offline does, the case told by
// the user's first message, and declines every request for input.
func Replay(cases []eval.Case) Responder { return replay(cases, true) }

// ReplayWithoutAsking answers as Replay, but as an agent that never asks
// the user anything: in a case with a simulated user (eval.User) it makes
// the reference calls at once, without the arguments that only the facts
// the user knows and has not given would give (an argument whose value
// states one of them is left out, so the tool takes its default), and
// gives the expected answer when their results hold it, else
// WrongAnswer, which it rejects as judge. The simulated user is played
// as Replay plays it.
func ReplayWithoutAsking(cases []eval.Case) Responder { return replay(cases, false) }

// replay is Replay; ask says whether the agent asks a simulated user for
// what it knows before it answers.
func replay(cases []eval.Case, ask bool) Responder {
	byQuestion := map[string]eval.Case{}
	for _, c := range cases {
		byQuestion[c.Input] = c
	}
	return func(req Request) Reply {
		switch req.ForcedTool() {
		case JudgeTool:
			if !ask && req.GradedAnswer() == WrongAnswer {
				return Verdict("no", "the answer does not give the expected information")
			}
			return Verdict("yes", "the answer contains the expected information")
		case ClaimsTool:
			verdicts := make([]string, len(req.Claims()))
			for i := range verdicts {
				verdicts[i] = "fulfilled"
			}
			return ClaimVerdicts(req, verdicts...)
		}
		if req.PlaysUser() {
			return playUser(req, byQuestion)
		}
		c, ok := byQuestion[req.Question()]
		if !ok {
			return Reply{Content: "I do not know."}
		}
		if c.User != nil {
			return replayWithUser(req, c, ask)
		}
		k := req.Turn() - 1
		if k > len(c.Turns) {
			return Reply{Content: "I do not know."}
		}
		// A reply in a conversation may state what an earlier turn found,
		// and is checked as its turn checks it.
		checked := c
		if r, ok := c.ReplyAt(k); ok && k < len(c.Turns) {
			checked = eval.Case{Checks: r.Checks}
		}
		return replayTurn(req, c.TurnReference(k), c.TurnExpected(k), strings.Join(c.UserMessages()[:k+1], "\n"), checked, len(c.Turns) > 0)
	}
}

// replayTurn answers at the request's turn as a correct agent does: the
// turn's reference calls refs, one a reply, then expected when the
// results hold it (those of the turn, and of the earlier turns when
// conversation is set; the numbers of asked count too, and checked's
// terms must be there), else the text of the turn's own successful
// results.
func replayTurn(req Request, refs []eval.RefCall, expected, asked string, checked eval.Case, conversation bool) Reply {
	// The tool results of the earlier turns, and this turn's: those
	// after its message.
	var earlier, own []string
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			earlier, own = append(earlier, own...), nil
		case "tool":
			own = append(own, m.Content)
		}
	}
	if done := len(own); done < len(refs) {
		ref := refs[done]
		name := ref.Tool
		if offered, ok := req.offered(name); ok {
			name = offered.name // as the model is offered it
		}
		return Reply{ToolCalls: []Call{{Name: name, Arguments: eval.ArgumentsJSON(ref.Args)}}}
	}
	var found []string
	for i, text := range own {
		if i < len(refs) && !refs[i].ExpectError {
			found = append(found, text)
		}
	}
	evidence := found
	if conversation {
		evidence = append(slices.Clone(earlier), found...)
	}
	if strings.TrimSpace(expected) != "" && holdsNumbers(strings.Join(evidence, "\n"), expected, asked) &&
		holdsTerms(strings.Join(evidence, "\n"), checked) {
		return Reply{Content: expected}
	}
	return Reply{Content: strings.Join(found, "\n")}
}

// replayWithUser answers in a conversation with the simulated user of c:
// asking (ask), it first gives the case's expected first reply, when it
// has one, then asks for what the user knows and has not given
// (usersim.Question), then makes the case's reference calls and gives
// its expected answer; not asking, it makes them at once without the
// arguments only the user's facts would give, and answers WrongAnswer
// when their results do not hold the expected answer.
func replayWithUser(req Request, c eval.Case, ask bool) Reply {
	var users []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	refs := c.Reference
	if ask {
		if len(users) == 1 && c.FirstReply != nil && c.FirstReply.Graded() {
			return Reply{Content: c.FirstReply.Expected}
		}
		if q := usersim.Question(*c.User, users); q != "" {
			return Reply{Content: q}
		}
		return replayTurn(req, refs, c.ReferenceAnswer(), strings.Join(users, "\n"), c, true)
	}
	r := replayTurn(req, unknowing(refs, *c.User, users), c.ReferenceAnswer(), strings.Join(users, "\n"), c, true)
	if len(r.ToolCalls) == 0 && r.Content != c.ReferenceAnswer() {
		r.Content = WrongAnswer // it does not say what it would have needed either
	}
	return r
}

// unknowing returns refs without the arguments whose value states a fact
// the user knows and has not given in their messages so far (users): the
// calls of an agent that did not ask for it.
func unknowing(refs []eval.RefCall, u eval.User, users []string) []eval.RefCall {
	var untold []eval.UserFact
	for _, f := range u.Knows {
		if !slices.ContainsFunc(users, func(m string) bool { return usersim.States(f, m) }) {
			untold = append(untold, f)
		}
	}
	out := make([]eval.RefCall, len(refs))
	for i, ref := range refs {
		out[i] = ref
		out[i].Args = map[string]any{}
		for k, v := range ref.Args {
			if !slices.ContainsFunc(untold, func(f eval.UserFact) bool { return usersim.States(f, fmt.Sprint(v)) }) {
				out[i].Args[k] = v
			}
		}
	}
	return out
}

// playUser answers a request to play a case's simulated user (see
// usersim) as usersim.Offline plays it: the case is the one whose input
// is the user's first message; a request for input during a tool call
// is declined. An unknown case's user is done.
func playUser(req Request, byQuestion map[string]eval.Case) Reply {
	if usersim.Elicits(req.Messages) {
		return Reply{Content: `{"action": "decline"}`}
	}
	c, turns, ok := req.userCase(byQuestion)
	if !ok {
		return Reply{Content: usersim.Stop}
	}
	msg, done := usersim.Offline(*c.User, turns)
	if done {
		return Reply{Content: usersim.Stop}
	}
	return Reply{Content: msg}
}

// userCase finds the case whose simulated user a request asks to play,
// by the user's first message (the case's question), with the
// conversation so far (userTurns); ok is false for an unknown case or one
// without a user.
func (r Request) userCase(byQuestion map[string]eval.Case) (c eval.Case, turns []eval.TurnResult, ok bool) {
	turns = r.userTurns()
	if len(turns) == 0 {
		return eval.Case{}, nil, false
	}
	c, ok = byQuestion[turns[0].User]
	return c, turns, ok && c.User != nil
}

// userTurns reads the conversation of a request to play a user (see
// usersim.Messages): the user's messages, each with the agent's reply.
func (r Request) userTurns() []eval.TurnResult {
	var turns []eval.TurnResult
	for _, m := range r.Messages[1:] {
		switch m.Role {
		case "assistant":
			turns = append(turns, eval.TurnResult{User: m.Content})
		case "user":
			if len(turns) > 0 {
				turns[len(turns)-1].Reply = m.Content
			}
		}
	}
	return turns
}

// LeakyUser plays the simulated user of cases as one who tells every
// fact they know at their first chance, asked or not, then is done;
// other requests go to next.
func LeakyUser(next Responder, cases []eval.Case) Responder {
	byQuestion := map[string]eval.Case{}
	for _, c := range cases {
		byQuestion[c.Input] = c
	}
	return func(req Request) Reply {
		if !req.PlaysUser() || usersim.Elicits(req.Messages) {
			return next(req)
		}
		c, turns, ok := req.userCase(byQuestion)
		if !ok {
			return Reply{Content: usersim.Stop}
		}
		var untold []string
		for _, f := range c.User.Knows {
			if !slices.ContainsFunc(turns, func(t eval.TurnResult) bool { return usersim.States(f, t.User) }) {
				untold = append(untold, f.Fact)
			}
		}
		if len(untold) == 0 {
			return Reply{Content: usersim.Stop}
		}
		return Reply{Content: strings.Join(untold, "\n")}
	}
}

// PlaysUser reports whether the request asks the model to play a case's
// simulated user (see usersim.Plays).
func (r Request) PlaysUser() bool { return usersim.Plays(r.Messages) }

// FailingUser answers every request to play a simulated user with HTTP
// 500, as a provider that is down does; other requests go to next.
func FailingUser(next Responder) Responder {
	return func(req Request) Reply {
		if req.PlaysUser() {
			return Reply{Status: http.StatusInternalServerError}
		}
		return next(req)
	}
}

// Turn returns the turn of a conversation the request asks the model
// about, from 1: the number of its user messages.
func (r Request) Turn() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "user" {
			n++
		}
	}
	return n
}

// stubNumberRE finds the numbers of a text that stand alone (not the
// digits of "BRCA2" or "p.N372H"), with their separators and a percent
// sign.
var stubNumberRE = regexp.MustCompile(`(?:^|[^\p{L}\d.,_])(\d[\d,]*(?:\.\d+)?)(%?)`)

// holdsNumbers reports whether results (or the question) hold every number
// of expected, as a model reading them would find it: written there
// (ignoring thousands separators and trailing zeros: "6,475.00" is
// "6475"), a percentage of a fraction there ("1.7%" of 0.0171), or the sum
// or difference of two numbers there (4,814 alleles from 4,213 and 601; a
// score 0.662 higher from 8.765 and 8.103).
func holdsNumbers(results, expected, question string) bool {
	var have []float64
	for _, m := range stubNumberRE.FindAllStringSubmatch(results+" "+question, -1) {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64); err == nil {
			have = append(have, v)
		}
	}
	near := func(v, want, tol float64) bool { return math.Abs(v-want) <= tol }
	for _, m := range stubNumberRE.FindAllStringSubmatch(expected, -1) {
		lit := strings.ReplaceAll(m[1], ",", "")
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return false
		}
		tol := 1e-9
		if i := strings.IndexByte(lit, '.'); i >= 0 {
			tol = 0.5 * math.Pow(10, -float64(len(lit)-i-1))
		}
		found := slices.ContainsFunc(have, func(v float64) bool {
			return near(v, want, 1e-9) || m[2] == "%" && near(100*v, want, tol)
		})
		for i := 0; !found && i < len(have); i++ {
			for j := i + 1; !found && j < len(have); j++ {
				found = near(have[i]+have[j], want, 1e-9) || near(math.Abs(have[i]-have[j]), want, tol)
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// holdsTerms reports whether results hold some spelling of every term the
// case's answer must contain, as whole words, case-insensitively (a final
// "*" matches the rest of a word); terms wanted under a negation ("no fly
// ortholog") state an absence and are left out. A term the question gives
// must be in the results too: a model answers from what they say.
func holdsTerms(results string, c eval.Case) bool {
	for _, t := range c.Checks.Contains {
		negated := slices.ContainsFunc(t.Any, func(sp string) bool {
			sp = strings.ToLower(strings.TrimSpace(sp))
			return strings.HasPrefix(sp, "no ") || strings.HasPrefix(sp, "not ")
		})
		found := slices.ContainsFunc(t.Any, func(sp string) bool {
			sp = strings.TrimSpace(sp)
			prefix := strings.HasSuffix(sp, "*")
			expr := `(?i)(?:^|[^\p{L}\p{N}_])` + regexp.QuoteMeta(strings.TrimSuffix(sp, "*"))
			if !prefix {
				expr += `(?:$|[^\p{L}\p{N}_])`
			}
			return regexp.MustCompile(expr).MatchString(results)
		})
		if len(t.Any) > 0 && !negated && !found {
			return false
		}
	}
	return true
}

// ReplayOffered answers like Replay, but only with what it was offered, as
// a careful model would: without tools it answers from what it knows
// ("I am not sure."), and it makes a reference call only when a tool of
// that name is offered and its description does not warn it off
// ("deprecated", "do not use"); otherwise it gives up on the case. A tool
// is offered under its own name or a server-qualified one
// (server__name).
func ReplayOffered(cases []eval.Case) Responder {
	replay := Replay(cases)
	return func(req Request) Reply {
		if req.ForcedTool() == JudgeTool || req.PlaysUser() {
			return replay(req) // the judge and the simulated user are offered no tools
		}
		if len(req.Tools) == 0 {
			return Reply{Content: "From what I know I am not sure; I have no tool to look it up."}
		}
		reply := replay(req)
		for i, call := range reply.ToolCalls {
			offered, ok := req.offered(call.Name)
			if !ok {
				return Reply{Content: "No tool offered can answer this."}
			}
			if d := strings.ToLower(offered.description); strings.Contains(d, "deprecated") || strings.Contains(d, "do not use") {
				return Reply{Content: "The tool for this says not to use it; I cannot answer."}
			}
			reply.ToolCalls[i].Name = offered.name
		}
		return reply
	}
}

// offered finds the tool the request offers for a tool's name on its
// server (or server/tool): the tool of that name, else the one qualified by
// a server (server__name), else the safe form of a name providers refuse
// (its letters and digits, each run of other characters "_", and a hash).
func (r Request) offered(name string) (tool struct{ name, description string }, ok bool) {
	wants := []string{name}
	if server, own, found := strings.Cut(name, "/"); found {
		wants = append(wants, server+"__"+own, own)
	}
	for _, want := range wants {
		safe := strings.Trim(nonName.ReplaceAllString(want, "_"), "_")
		for _, t := range r.Tools {
			f := t.Function
			stem := hashSuffix.ReplaceAllString(f.Name, "")
			if f.Name == want || strings.HasSuffix(f.Name, "__"+want) || stem != f.Name && (stem == safe || strings.HasSuffix(stem, "__"+safe)) {
				tool.name, tool.description = f.Name, f.Description
				return tool, true
			}
		}
	}
	return tool, false
}

// nonName matches runs of characters providers refuse in a tool name;
// hashSuffix the hash a safe form ends with.
var (
	nonName    = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)
	hashSuffix = regexp.MustCompile(`_[0-9a-f]{8}$`)
)

// Verdict is a judge reply through the submit_verdict tool, with the
// judge's restatement agreeing.
func Verdict(verdict, reason string) Reply {
	args, _ := json.Marshal(map[string]any{"verdict": verdict, "reason": reason, "answer_is_correct": verdict == "yes"})
	return Reply{ToolCalls: []Call{{Name: JudgeTool, Arguments: string(args)}}}
}

// ClaimVerdicts is a judge's reply to req about a case's claims: a verdict
// ("fulfilled", "partial" or "not") for each, in order, each quoting the
// sentence of the answer that shares most of its claim's numbers (a "not"
// quotes nothing).
func ClaimVerdicts(req Request, verdicts ...string) Reply {
	type entry struct {
		Claim   int    `json:"claim"`
		Verdict string `json:"verdict"`
		Reason  string `json:"reason"`
		Quote   string `json:"quote"`
	}
	answer, claims := req.GradedAnswer(), req.Claims()
	entries := make([]entry, len(verdicts))
	for i, v := range verdicts {
		entries[i] = entry{Claim: i + 1, Verdict: v, Reason: "the answer's statement of the claim decided it"}
		if v != "not" && i < len(claims) {
			entries[i].Quote = closestSentence(answer, claims[i])
		}
	}
	args, _ := json.Marshal(map[string]any{"claims": entries})
	return Reply{ToolCalls: []Call{{Name: ClaimsTool, Arguments: string(args)}}}
}

// sentenceEnd ends a sentence (or a line) of a text: not the point of
// "6,446.20".
var sentenceEnd = regexp.MustCompile(`[.!?]+(?:\s+|$)|\n+`)

// closestSentence returns the sentence of answer that holds most of the
// claim's standalone numbers, else its first one.
func closestSentence(answer, claim string) string {
	best, most := "", -1
	for _, s := range sentenceEnd.Split(answer, -1) {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		n := 0
		for _, m := range stubNumberRE.FindAllStringSubmatch(claim, -1) {
			if strings.Contains(s, m[1]) {
				n++
			}
		}
		if n > most {
			best, most = s, n
		}
	}
	return best
}

// UnclearVerdict is a judge reply whose signals disagree: a yes call, and
// beside it a text that says no.
func UnclearVerdict() Reply {
	r := Verdict("yes", "the answer matches")
	r.Content = "Correct: no"
	return r
}

// Graded is what a judge request asks to grade.
type Graded struct {
	Question string `json:"question"`
	Expected string `json:"expected_answer"`
	Answer   string `json:"actual_answer"`
}

// Graded returns the texts a judge request grades: the JSON object of its
// user message. ok is false for a request that is not the judge's.
func (r Request) Graded() (g Graded, ok bool) {
	if r.ForcedTool() != JudgeTool {
		return Graded{}, false
	}
	q := r.Question()
	i := strings.Index(q, "{")
	if i < 0 || json.Unmarshal([]byte(q[i:]), &g) != nil {
		return Graded{}, false
	}
	return g, true
}

// JudgeWith answers judge requests with judge(model, graded texts) and
// every other request with next ("I do not know." when next is nil).
func JudgeWith(next Responder, judge func(model string, g Graded) Reply) Responder {
	return func(req Request) Reply {
		if g, ok := req.Graded(); ok {
			return judge(req.Model, g)
		}
		if next == nil {
			return Reply{Content: "I do not know."}
		}
		return next(req)
	}
}

// RejectingJudges makes the named judge models say no to every answer
// (and "not" to every claim); other requests go to next. With EVAL_JUDGE_MODEL naming them among
// others, the judges disagree.
func RejectingJudges(next Responder, models ...string) Responder {
	return func(req Request) Reply {
		switch {
		case !slices.Contains(models, req.Model):
		case req.ForcedTool() == JudgeTool:
			return Verdict("no", "the answer does not match the expected answer")
		case req.ForcedTool() == ClaimsTool:
			verdicts := make([]string, len(req.Claims()))
			for i := range verdicts {
				verdicts[i] = "not"
			}
			return ClaimVerdicts(req, verdicts...)
		}
		return next(req)
	}
}

// UnclearJudges makes the named judge models answer every judge request
// unclearly (UnclearVerdict; about claims, a text that is no claims
// object), so that the suite asks again and then finds the judge
// undecided; other requests go to next.
func UnclearJudges(next Responder, models ...string) Responder {
	return func(req Request) Reply {
		switch {
		case !slices.Contains(models, req.Model):
		case req.ForcedTool() == JudgeTool:
			return UnclearVerdict()
		case req.ForcedTool() == ClaimsTool:
			return Reply{Content: "Every claim is fulfilled, or perhaps none is."}
		}
		return next(req)
	}
}

// WrongAnswer is what a model made wrong by Wrong answers.
const WrongAnswer = "I could not find that."

// Wrong makes model answer WrongAnswer, at once, to every question that
// wrong matches, and makes every judge reject that answer; other requests
// go to next. Two model names on one stub then give two models, one right
// on every case and one wrong on a known subset.
func Wrong(next Responder, model string, wrong *regexp.Regexp) Responder {
	return func(req Request) Reply {
		if g, ok := req.Graded(); ok {
			if g.Answer == WrongAnswer {
				return Verdict("no", "the answer does not give the expected information")
			}
			return next(req)
		}
		if req.ForcedTool() == ClaimsTool && req.GradedAnswer() == WrongAnswer {
			verdicts := make([]string, len(req.Claims()))
			for i := range verdicts {
				verdicts[i] = "not"
			}
			return ClaimVerdicts(req, verdicts...)
		}
		if req.Model == model && wrong.MatchString(req.Question()) {
			return Reply{Content: WrongAnswer}
		}
		return next(req)
	}
}

// WrongAtTurn makes the model answer WrongAnswer, at once, at the given
// turn of every conversation (from 1; see Request.Turn); other requests,
// the judges' included, go to next.
func WrongAtTurn(next Responder, turn int) Responder {
	return func(req Request) Reply {
		if req.ForcedTool() == "" && !req.PlaysUser() && req.Turn() == turn {
			return Reply{Content: WrongAnswer}
		}
		return next(req)
	}
}

// Priced makes every reply to model report usd as its cost, as OpenRouter
// reports usage.cost; other replies are next's.
func Priced(next Responder, model string, usd float64) Responder {
	return func(req Request) Reply {
		reply := next(req)
		if req.Model == model {
			reply.CostUSD = &usd
		}
		return reply
	}
}
