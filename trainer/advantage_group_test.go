package trainer

import (
	"math"
	"strings"
	"testing"
)

func TestGroupAdvantagesPerGroup(t *testing.T) {
	// Two interleaved groups and a singleton; each must equal its own
	// estimator call, whatever the other rows hold.
	rewards := []float64{1, 10, 2, 20, 3, 7, 30}
	groups := []string{"a", "b", "a", "b", "a", "", "b"}
	for _, est := range []Estimator{SoftRankEstimator{Tau: 0.8}, GRPO{}, RLOO{}, Reinforce{}} {
		got := make([]float64, len(rewards))
		if err := GroupAdvantages(got, rewards, groups, est); err != nil {
			t.Fatal(err)
		}
		for _, g := range []struct {
			rows []int
		}{{[]int{0, 2, 4}}, {[]int{1, 3, 6}}, {[]int{5}}} {
			r := make([]float64, len(g.rows))
			for k, i := range g.rows {
				r[k] = rewards[i]
			}
			want := make([]float64, len(r))
			if err := est.Advantages(want, r); err != nil {
				t.Fatal(err)
			}
			for k, i := range g.rows {
				if got[i] != want[k] {
					t.Errorf("%s: row %d = %v, want %v (its group alone)", est.Name(), i, got[i], want[k])
				}
			}
		}
	}
	// Group "a" ≡ group "b" up to scale: SoftRankPO gives them the same advantages.
	got := make([]float64, len(rewards))
	_ = GroupAdvantages(got, rewards, groups, SoftRankEstimator{Tau: 0.8})
	if math.Abs(got[0]-got[1]) > 1e-12 || got[5] != 0 {
		t.Errorf("SoftRankPO per group: %v", got)
	}
}

func TestGroupAdvantagesBadInput(t *testing.T) {
	est := SoftRankEstimator{Tau: 0.8}
	cases := []struct {
		dst, r []float64
		g      []string
		est    Estimator
		want   string
	}{
		{make([]float64, 2), []float64{1, 2}, []string{"a", "a"}, nil, "nil estimator"},
		{nil, nil, nil, est, "no rewards"},
		{make([]float64, 1), []float64{1, 2}, []string{"a", "a"}, est, "len(dst)=1 for 2 rewards"},
		{make([]float64, 2), []float64{1, 2}, []string{"a"}, est, "1 group keys for 2 rewards"},
		{make([]float64, 3), []float64{1, 2, math.NaN()}, []string{"a", "b", "b"}, est, "row 2: reward is NaN"},
		{make([]float64, 2), []float64{1, 2}, []string{"a", "b"}, SoftRankEstimator{Tau: -1}, `group "a": trainer: softrank: tau -1`},
	}
	for _, c := range cases {
		err := GroupAdvantages(c.dst, c.r, c.g, c.est)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("GroupAdvantages: %v, want %q", err, c.want)
		}
	}
}

func TestGroupingReuse(t *testing.T) {
	var g grouping
	g.build([]string{"x", "y", "x"})
	g.build([]string{"q", "q", "r", "q"}) // a second batch reuses the buffers
	if g.len() != 2 || g.keys[0] != "q" || g.keys[1] != "r" {
		t.Fatalf("keys %v", g.keys)
	}
	if m := g.members(0); len(m) != 3 || m[0] != 0 || m[1] != 1 || m[2] != 3 {
		t.Errorf("group q rows %v, want [0 1 3]", m)
	}
	if m := g.members(1); len(m) != 1 || m[0] != 2 {
		t.Errorf("group r rows %v, want [2]", m)
	}
	std, zero := g.groupStats([]float64{1, 3, 5, 2})
	// q = {1, 3, 2}: population std √(2/3); r = {5}: 0 and a zero-std group.
	if math.Abs(std-math.Sqrt(2.0/3)/2) > 1e-15 || zero != 0.5 {
		t.Errorf("groupStats = %v, %v, want %v, 0.5", std, zero, math.Sqrt(2.0/3)/2)
	}
}
