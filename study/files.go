package study

import (
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/outfile"
)

// Files a study writes into its directory.
const (
	ResultsName = "results.json" // one row per task × policy × seed (WriteResults)
	ReportName  = "report.md"    // the pooled and per-model tables (Summary.WriteMarkdown)
	ParetoName  = "pareto.png"   // accuracy against tokens, pooled scope (Scope.WritePareto)
)

// WriteDir writes the study's three files into dir (created if missing),
// each atomically through outfile: a failure leaves any earlier file of the
// same name as it was. sum is s.Summarise()'s result.
func (s *Study) WriteDir(dir string, sum *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := outfile.WriteFile(filepath.Join(dir, ResultsName), s.WriteResults); err != nil {
		return err
	}
	if err := outfile.WriteFile(filepath.Join(dir, ReportName), sum.WriteMarkdown); err != nil {
		return err
	}
	return outfile.WriteFile(filepath.Join(dir, ParetoName), sum.Scopes[0].WritePareto)
}
