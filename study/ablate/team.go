package ablate

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/study"
)

// TeamSizes is the team-size ablation's grid on the simulator: the sizes
// of the shared transcripts' teams (3, 5 and 7 agents).
var TeamSizes = []int{3, 5, 7}

// TeamRef is the fixed protocol each team size's learned policy is
// compared with: LLM-Debate, the protocol the paper measures MPDF against
// as teams grow (its Fig. 4); when a study has no debate baseline, its
// first baseline.
const TeamRef = "debate"

// TeamEnv is one team size's environment of the team-size ablation.
type TeamEnv struct {
	Agents int
	Env    env.Env
}

// SplitByTeamSize groups e's tasks by the size of the team that plays
// them (a replay of transcripts with 3-, 5- and 7-agent files), smallest
// first. It starts each task once to ask its size; a replay's Start draws
// nothing from the stream.
func SplitByTeamSize(e env.Env) ([]TeamEnv, error) {
	by := map[int][]int{}
	rng := rand.New(rand.NewPCG(0, 0))
	for t := range e.NumTasks() {
		g, err := e.Start(t, rng)
		if err != nil {
			return nil, fmt.Errorf("study: team sizes: %w", err)
		}
		by[g.Agents()] = append(by[g.Agents()], t)
	}
	var out []TeamEnv
	for n, tasks := range by {
		out = append(out, TeamEnv{Agents: n, Env: study.Subset(e, tasks)})
	}
	slices.SortFunc(out, func(a, b TeamEnv) int { return cmp.Compare(a.Agents, b.Agents) })
	return out, nil
}

// AblateTeams runs the team-size ablation: cfg's study (its folds, seeds
// and recipe, at the first of cfg.Lambdas) once per team, as Ablate runs
// one setting — the supervised stage alone and the baselines first, then
// the whole recipe — and reports per team size the learned policy, its
// paired Δ against TeamRef on the same tasks and seeds, and the persist
// shares after SFT and after RL. Teams are trained and tested apart: a
// size's policy never sees another size's tasks. The rows of every team
// (results.json) are named "POLICY (N agents)".
func AblateTeams(teams []TeamEnv, cfg study.Config) (*Ablation, error) {
	if len(teams) == 0 {
		return nil, fmt.Errorf("study: ablation %s: no teams", AblateTeamSize)
	}
	progress := cfg.Progress
	var out *Ablation
	var envs []string
	tasks := 0
	for i, tm := range teams {
		c := cfg
		if progress != nil {
			c.Progress = func(done, total int) { progress(i*total+done, len(teams)*total) }
		}
		a, err := ablate(tm.Env, c, AblateTeamSize)
		if err != nil {
			return nil, fmt.Errorf("study: ablation %s: %d agents: %w", AblateTeamSize, tm.Agents, err)
		}
		suffix := fmt.Sprintf(" (%d agents)", tm.Agents)
		ref := TeamRef
		if !slices.Contains(a.Study.Fixed, ref) && len(a.Study.Fixed) > 0 {
			ref = a.Study.Fixed[0]
		}
		row := a.Rows[0]
		row.Setting = fmt.Sprintf("%d agents", tm.Agents)
		if slices.Contains(a.Study.Fixed, ref) {
			d, dt, err := a.Study.PairedDelta(a.Rows[0].Setting, ref)
			if err != nil {
				return nil, fmt.Errorf("study: ablation %s: %d agents: %w", AblateTeamSize, tm.Agents, err)
			}
			row.Ref, row.Delta, row.DeltaTokens = ref+suffix, d, dt
		}
		for j := range a.Baselines {
			a.Baselines[j].Policy += suffix
		}
		for j := range a.Study.Rows {
			a.Study.Rows[j].Policy += suffix
			a.Study.Rows[j].Index += tasks
		}
		rename := func(names []string) []string {
			r := slices.Clone(names)
			for j := range r {
				r[j] += suffix
			}
			return r
		}
		envs = append(envs, fmt.Sprintf("%d agents (%d tasks, %d distinct questions, %d rounds)", tm.Agents, a.Summary.Tasks, a.Summary.Questions, a.Summary.Rounds))
		if out == nil {
			out = a
			out.Kind = AblateTeamSize
			out.Rows = []AblationRow{row}
			out.Study.Learned, out.Study.Fixed = rename(a.Study.Learned), rename(a.Study.Fixed)
			s := *a.Summary
			out.Summary = &s
		} else {
			out.Rows = append(out.Rows, row)
			out.Baselines = append(out.Baselines, a.Baselines...)
			out.Study.Rows = append(out.Study.Rows, a.Study.Rows...)
			out.Study.Tasks = append(out.Study.Tasks, a.Study.Tasks...)
			out.Study.Folds = append(out.Study.Folds, a.Study.Folds...)
			out.Study.Learned = append(out.Study.Learned, rename(a.Study.Learned)...)
			out.Study.Fixed = append(out.Study.Fixed, rename(a.Study.Fixed)...)
			out.Summary.Tasks += a.Summary.Tasks
			out.Summary.Questions += a.Summary.Questions
			out.Summary.Rounds = max(out.Summary.Rounds, a.Summary.Rounds)
			out.Summary.Folds = append(out.Summary.Folds, a.Summary.Folds...)
			for _, m := range a.Summary.Models {
				if !slices.Contains(out.Summary.Models, m) {
					out.Summary.Models = append(out.Summary.Models, m)
				}
			}
		}
		tasks += len(a.Study.Tasks)
	}
	out.Summary.Env = study.ShortEnv(out.Summary.Env) + " by team size: " + strings.Join(envs, ", ")
	// Each team's pooled tables are in its rows above; one team's scopes
	// would read as all of them.
	out.Summary.Scopes = nil
	// A question debated by several team sizes is one question, as each
	// team's count says.
	units := map[string]bool{}
	for _, t := range out.Study.Tasks {
		units[t.Unit] = true
	}
	out.Summary.Questions = len(units)
	return out, nil
}

// TeamsOf returns the teams of the team-size ablation on e: on the
// simulator, one simulator per size of TeamSizes with e's configuration
// (its tasks and seed; every agent of the default skill, so e must not
// fix per-agent skills); on any other environment, e's tasks grouped by
// team size (SplitByTeamSize), which must give at least two sizes.
func TeamsOf(e env.Env) ([]TeamEnv, error) {
	if s, ok := e.(*sim.Simulator); ok {
		c := s.Config()
		if len(c.Skills) > 0 && !slices.ContainsFunc(c.Skills, func(v float64) bool { return v != c.Skills[0] }) {
			c.Skills = nil // the default skills, one per agent: sized per team below
		}
		if len(c.Skills) > 0 {
			return nil, fmt.Errorf("study: ablation %s: the simulator's per-agent skills fix its team at %d agents", AblateTeamSize, len(c.Skills))
		}
		var out []TeamEnv
		for _, n := range TeamSizes {
			c.Agents = n
			t, err := sim.New(c)
			if err != nil {
				return nil, fmt.Errorf("study: ablation %s: %d agents: %w", AblateTeamSize, n, err)
			}
			out = append(out, TeamEnv{Agents: n, Env: t})
		}
		return out, nil
	}
	teams, err := SplitByTeamSize(e)
	if err != nil {
		return nil, err
	}
	if len(teams) == 0 {
		return nil, fmt.Errorf("study: ablation %s: %s has no tasks", AblateTeamSize, e.Name())
	}
	if len(teams) < 2 {
		return nil, fmt.Errorf("study: ablation %s: every task of %s has a team of %d agents; give transcripts of several team sizes", AblateTeamSize, e.Name(), teams[0].Agents)
	}
	return teams, nil
}
