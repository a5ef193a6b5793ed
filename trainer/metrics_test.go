package trainer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// design §4's list, with advantages/mean|min|max and actions/persist|refine|concede
// spelled out.
var specMetricNames = []string{
	"loss", "policy_loss", "kl", "entropy", "clip_ratio/low", "clip_ratio/high",
	"reward", "reward_std", "frac_reward_zero_std",
	"advantages/mean", "advantages/min", "advantages/max",
	"grad_norm", "learning_rate", "step_time",
	"actions/persist", "actions/refine", "actions/concede",
	"advantages/nonzero",
}

func TestMetricsJSONKeys(t *testing.T) {
	m := Metrics{}
	vals := m.AppendValues(nil)
	for i := range vals { // distinct values tell the fields apart
		vals[i] = float64(i + 1)
	}
	m = metricsFromValuesTest(vals)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]float64
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(specMetricNames) {
		t.Errorf("JSON has %d keys, design §4 lists %d: %s", len(got), len(specMetricNames), b)
	}
	for i, name := range specMetricNames {
		v, ok := got[name]
		if !ok {
			t.Errorf("JSON lacks %q: %s", name, b)
		} else if v != float64(i+1) {
			t.Errorf("%q = %v, want %v (MetricNames and AppendValues disagree with the tag)", name, v, i+1)
		}
	}
	if !slices.Equal(MetricNames(), specMetricNames) {
		t.Errorf("MetricNames() = %v", MetricNames())
	}
}

// metricsFromValuesTest sets the fields in declaration order by reflection,
// independently of AppendValues.
func metricsFromValuesTest(v []float64) Metrics {
	var m Metrics
	rv := reflect.ValueOf(&m).Elem()
	for i := range rv.NumField() {
		rv.Field(i).SetFloat(v[i])
	}
	return m
}

// The names in design §4 itself (docs/design.md).
func TestMetricsNamesMatchSpec(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "Per-step metrics")
	if i < 0 {
		t.Fatal("design.md has no per-step metrics paragraph")
	}
	para := text[i:]
	para = para[:strings.Index(para, "\n\n")]
	var names []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(para, -1) {
		name := m[1]
		if j := strings.IndexByte(name, '/'); j >= 0 && strings.Contains(name, "|") {
			for _, alt := range strings.Split(name[j+1:], "|") {
				names = append(names, name[:j+1]+alt)
			}
			continue
		}
		names = append(names, name)
	}
	if !slices.Equal(names, specMetricNames) {
		t.Errorf("design §4 lists %v\nthe package has %v", names, specMetricNames)
	}
}
