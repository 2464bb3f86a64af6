package eval

// The causes of a case that flipped between a baseline run and a later
// one (see baseline.Attribution), in the order they are looked for.
const (
	// CauseInfrastructure: a run of the case ended in an error, a cut
	// reply or a token limit, in either run.
	CauseInfrastructure = "infrastructure"
	// CauseSurface: a tool the case called changed in the tool surface.
	CauseSurface = "surface"
	// CauseCase: the case itself changed: its expected answer, or the
	// checks it makes (the case file was edited).
	CauseCase = "case"
	// CauseGrading: the suite's grading changed (Record.Grading, its
	// version) and graded the same answer otherwise.
	CauseGrading = "grading"
	// CauseData: the case made the same calls, and some returned other
	// results.
	CauseData = "data"
	// CauseJudge: the same answer, or the same outcome of the checks, got
	// another verdict.
	CauseJudge = "judge"
	// CauseModel: none of the above: the model answered otherwise.
	CauseModel = "model"
)

// Causes returns the causes of a flip, in the order they are looked for.
func Causes() []string {
	return []string{CauseInfrastructure, CauseSurface, CauseCase, CauseGrading, CauseData, CauseJudge, CauseModel}
}
