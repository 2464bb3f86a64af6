// Package report writes an evaluation run's report: one self-contained
// HTML file that shows every case of the run, made from the run's
// directory and the go test -json output of the test binaries that ran it.
// The same run can be written as JUnit XML, for CI.
//
// The run's directory is the one the suite wrote (evaltest/out/runs/<id>):
// its records (results.jsonl), summary and metrics. The go test -json
// output says which case tests passed, failed, were skipped or never
// finished, and what failed outside the cases (a build error, a panic, a
// timeout); without it the report shows the records alone.
//
//	// after go test ./evaltest -json > run.json
//	stream, err := os.Open("run.json")
//	...
//	run, err := report.Read("evaltest/out/runs/20261128T101500.000Z-a1b2c3", stream)
//	...
//	page, err := os.Create("report.html")
//	...
//	err = run.WriteHTML(page)
//
// The page runs no script but its own and loads nothing: a
// Content-Security-Policy allows nothing else, so the run's texts (a
// model's answers, a tool's results) cannot act in the browser. The
// command mcpeval report writes the same page, with the comparison with a
// baseline run besides.
package report
