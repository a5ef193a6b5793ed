package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mpdf/mpdf/metapolicy"
)

// Stats summarises a data set: what `mpdf data stats` prints. Build it
// with CollectStats, or NewStats and Add for records read elsewhere.
type Stats struct {
	Counts Counts `json:"counts"`
	// Episodes by team size and by number of deliberation rounds.
	Agents map[int]int64 `json:"agents"`
	Rounds map[int]int64 `json:"rounds"`
	// NoGold counts episodes without gold (no reward, no decision).
	NoGold int64 `json:"no_gold"`
	// Team accuracy over episodes with gold: the team answer of round 0
	// and of the last round.
	TeamCorrectInitial int64 `json:"team_correct_initial"`
	TeamCorrectFinal   int64 `json:"team_correct_final"`
	Tokens             int64 `json:"tokens"` // summed over every turn
	// Training decisions: decision records plus those made from episodes.
	Decisions    int64            `json:"decisions"`
	Actions      map[string]int64 `json:"actions"`
	Groups       int64            `json:"groups"`
	FeatureWidth int              `json:"feature_width"`
	Reward       Summary          `json:"reward"`

	cfg    RewardConfig
	groups map[string]struct{}
	m2     float64 // Welford's sum of squared deviations of the rewards
}

// Summary is the count, mean, population standard deviation, minimum and
// maximum of a set of values (all zero when empty).
type Summary struct {
	N    int64   `json:"n"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// NewStats returns empty Stats whose episode rewards and groups follow cfg.
func NewStats(cfg RewardConfig) (*Stats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Stats{
		Agents: map[int]int64{}, Rounds: map[int]int64{}, Actions: map[string]int64{},
		cfg: cfg.withDefaults(), groups: map[string]struct{}{},
	}, nil
}

// CollectStats reads r to its end and summarises it. Rejected records
// stop it unless r skips them; Counts covers what was read either way.
func CollectStats(r *Reader, cfg RewardConfig) (*Stats, error) {
	s, err := NewStats(cfg)
	if err != nil {
		return nil, err
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Counts = r.Counts()
			return s, err
		}
		if err := s.Add(rec); err != nil {
			s.Counts = r.Counts()
			return s, err
		}
	}
	s.Counts = r.Counts()
	return s, nil
}

// Add accounts for one accepted record (it does not touch Counts, which
// come from the Reader).
func (s *Stats) Add(rec Record) error {
	if d := rec.Decision; d != nil {
		s.decision(d.Group, d.Action, d.Reward, len(d.Features))
		return nil
	}
	ep := rec.Episode
	s.Agents[ep.Agents]++
	s.Rounds[len(ep.Rounds)-1]++
	for t := range ep.Rounds {
		for _, u := range ep.Rounds[t].Turns {
			s.Tokens += int64(u.Tokens)
		}
	}
	if ep.Gold == "" {
		s.NoGold++
		return nil
	}
	if err := validateEpisode(ep); err != nil {
		return fmt.Errorf("data: %s: %w", rec.Pos, err)
	}
	team := func(t int) bool {
		a := TeamAnswer(ep.Rounds[t].Turns)
		return a != "" && a == ep.Gold
	}
	if team(0) {
		s.TeamCorrectInitial++
	}
	if team(len(ep.Rounds) - 1) {
		s.TeamCorrectFinal++
	}
	r, err := rewards(ep, s.cfg)
	if err != nil && !errors.Is(err, ErrNoGold) {
		return err
	}
	for t := 1; t < len(ep.Rounds); t++ {
		g := GroupKey(ep, t, s.cfg.GroupBy)
		for i, u := range ep.Rounds[t].Turns {
			s.decision(g, *u.Action, r[t][i], metapolicy.FeatureWidth)
		}
	}
	return nil
}

func (s *Stats) decision(group string, a metapolicy.Action, reward float64, width int) {
	s.Decisions++
	s.Actions[a.String()]++
	if _, ok := s.groups[group]; !ok {
		s.groups[group] = struct{}{}
		s.Groups++
	}
	if s.FeatureWidth == 0 {
		s.FeatureWidth = width
	}
	r := &s.Reward
	r.N++
	if r.N == 1 {
		r.Min, r.Max = reward, reward
	}
	r.Min, r.Max = min(r.Min, reward), max(r.Max, reward)
	delta := reward - r.Mean
	r.Mean += delta / float64(r.N)
	s.m2 += delta * (reward - r.Mean)
	r.Std = math.Sqrt(s.m2 / float64(r.N))
}

// WriteText prints s as a text table, then a note on the records rejected
// and the episode ids repeated, which it skipped and counted.
func (s *Stats) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	c := s.Counts
	fmt.Fprintf(tw, "records\tread %d, accepted %d, rejected %d (%d files, %d bytes)\n", c.Read, c.Accepted, c.Rejected, c.Files, c.Bytes)
	fmt.Fprintf(tw, "  episodes\t%d\n", c.Episodes)
	fmt.Fprintf(tw, "  decision records\t%d\n", c.Decisions)
	if episodes := sumValues(s.Agents); episodes > 0 {
		fmt.Fprintf(tw, "team size\t%s\n", histogram(s.Agents))
		fmt.Fprintf(tw, "deliberation rounds\t%s\n", histogram(s.Rounds))
		fmt.Fprintf(tw, "episodes without gold\t%d (no reward, no decision)\n", s.NoGold)
		if gold := episodes - s.NoGold; gold > 0 {
			fmt.Fprintf(tw, "team accuracy\tround 0 %.3f, final %.3f (%d episodes with gold)\n",
				float64(s.TeamCorrectInitial)/float64(gold), float64(s.TeamCorrectFinal)/float64(gold), gold)
		}
		fmt.Fprintf(tw, "tokens\t%d\n", s.Tokens)
	}
	fmt.Fprintf(tw, "training decisions\t%d in %d groups, feature width %d\n", s.Decisions, s.Groups, s.FeatureWidth)
	var acts []string
	for _, a := range metapolicy.Actions {
		n := s.Actions[a.String()]
		acts = append(acts, fmt.Sprintf("%s %d (%.1f%%)", a, n, 100*float64(n)/float64(max(s.Decisions, 1))))
	}
	fmt.Fprintf(tw, "actions\t%s\n", strings.Join(acts, ", "))
	r := s.Reward
	fmt.Fprintf(tw, "reward\tmean %.4g, std %.4g, min %.4g, max %.4g (n %d)\n", r.Mean, r.Std, r.Min, r.Max, r.N)
	if err := tw.Flush(); err != nil {
		return err
	}
	if c.Rejected > 0 {
		fmt.Fprintf(w, "%d records were rejected and skipped: mpdf data validate lists them\n", c.Rejected)
	}
	if c.DuplicateIDs > 0 {
		fmt.Fprintf(w, "warning: %d episodes repeat an earlier episode's id: mpdf data validate lists them\n", c.DuplicateIDs)
	}
	return nil
}

func sumValues(m map[int]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// histogram formats "key: count" pairs by increasing key.
func histogram(m map[int]int64) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
