package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// An option out of range is a *SettingError naming it by its key (a
// caller words it as its own setting), before the run writes anything.
func TestOptionsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		key  string
		want string
	}{
		{func(c *Config) { c.Keep = -1 }, "keep", "run: keep -1: want ≥ 0 (0 keeps every checkpoint)"},
		{func(c *Config) { c.Threads = -2 }, "threads", "run: threads -2: want ≥ 0 (0 uses every core)"},
		{func(c *Config) { c.EvalTasks = -3 }, "eval_tasks", "run: eval tasks -3: want ≥ 0 (0 skips the evaluation)"},
		{func(c *Config) { c.FeatureWidth = -4 }, "feature_width", "run: feature width -4: want ≥ 0 (0: a pack's width, else 26)"},
		{func(c *Config) { c.MetricsEvery = "epoch" }, "metrics_every", `run: metrics every "epoch": want step or iteration`},
		{func(c *Config) { c.BestMetric = "bogus" }, "best_metric", `run: best metric "bogus": not a metric this run records`},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		src := memRows()
		cfg := Config{Train: tinyConfig(), Data: &src, Dir: dir}
		c.set(&cfg)
		_, err := Train(context.Background(), cfg, Hooks{})
		var se *SettingError
		if !errors.As(err, &se) || se.Key != c.key || err.Error() != c.want {
			t.Errorf("%s: %v, want a *SettingError %q", c.key, err, c.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s: the refused run made its directory (%v)", c.key, err)
		}
	}
}
