package run

import (
	"fmt"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
)

// A SettingError is a run option out of range (Config's Keep, Threads,
// EvalTasks, FeatureWidth, MetricsEvery, BestMetric): Key names it as
// Options' JSON keys do ("keep", "eval_tasks", ...; "threads"), for a
// caller to word as its own setting (mpdf train's flags). Its Scope is
// "run".
type SettingError = errmark.Setting

// checkOptions refuses an option out of range.
func (c *Config) checkOptions() error {
	bad := func(key string, v any, want string) error { return errmark.Bad("run", key, v, want) }
	switch {
	case c.Keep < 0:
		return bad("keep", c.Keep, "want ≥ 0 (0 keeps every checkpoint)")
	case c.Threads < 0:
		return bad("threads", c.Threads, "want ≥ 0 (0 uses every core)")
	case c.MetricsEvery != "" && c.MetricsEvery != MetricsEveryStep && c.MetricsEvery != MetricsEveryIteration:
		return bad("metrics_every", fmt.Sprintf("%q", c.MetricsEvery), "want "+MetricsEveryStep+" or "+MetricsEveryIteration)
	case c.EvalTasks < 0:
		return bad("eval_tasks", c.EvalTasks, "want ≥ 0 (0 skips the evaluation)")
	case c.FeatureWidth < 0:
		return bad("feature_width", c.FeatureWidth, fmt.Sprintf("want ≥ 0 (0: a pack's width, else %d)", metapolicy.FeatureWidth))
	}
	return nil
}
