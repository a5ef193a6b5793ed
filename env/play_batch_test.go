package env_test

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// refPlay is Play as it was before batching (one policy call per decision,
// one episode at a time, Workers 1), kept as the oracle the batched runner
// must match byte for byte.
func refPlay(e env.Env, pol metapolicy.Policy, opts env.RunOptions) ([]data.Episode, error) {
	tasks := opts.Tasks
	if tasks == nil {
		for k := range e.NumTasks() {
			tasks = append(tasks, k)
		}
		if opts.NumTasks > 0 {
			tasks = tasks[:opts.NumTasks]
		}
	}
	episodes, rounds := max(opts.Episodes, 1), opts.Rounds
	if rounds == 0 {
		rounds = env.DefaultRounds
	}
	_, selfRefine := pol.(metapolicy.SelfRefiner)
	var out []data.Episode
	for _, task := range tasks {
		for ep := range episodes {
			r := env.RoundsOf(e, task, rounds)
			g, err := e.Start(task, env.EpisodeRNG(opts.Seed, task, ep, env.StreamEnv))
			if err != nil {
				return out, err
			}
			prng := env.EpisodeRNG(opts.Seed, task, ep, env.StreamPolicy)
			id, question, gold := g.Task()
			n := g.Agents()
			turns, err := g.Initial()
			if err != nil {
				return out, err
			}
			for i := range turns {
				turns[i].Action, turns[i].LogProb = nil, nil
			}
			o := data.Episode{Kind: data.KindEpisode, ID: env.EpisodeID(pol.Name(), opts.Seed, id, ep), Task: id,
				Question: question, Gold: gold, Source: env.SourceOf(e, task), Policy: pol.Name(), Agents: n,
				Rounds: []data.Round{{Turns: turns}}}
			states := make([]metapolicy.AgentState, n)
			var history [][]string
			for t := 1; t <= r; t++ {
				prev := o.Rounds[t-1].Turns
				answers := make([]string, n)
				for i := range prev {
					states[i], answers[i] = prev[i].State(), prev[i].Answer
				}
				history = append(history, answers)
				actions, logps := make([]metapolicy.Action, n), make([]float64, n)
				for i := range n {
					obs := metapolicy.Observation{Self: i, Round: t, Rounds: r, Agents: states, History: history}
					var err error
					if opts.Greedy {
						actions[i], logps[i], err = metapolicy.Greedy(pol, &obs)
					} else {
						actions[i], logps[i], err = metapolicy.Sample(pol, &obs, prng)
					}
					if err != nil {
						return out, err
					}
					logps[i] = min(logps[i], 0)
				}
				cur := make([]data.Turn, n)
				for i := range n {
					seen := prev
					if selfRefine && pol.(metapolicy.SelfRefiner).SelfRefine() && actions[i] == metapolicy.Refine {
						seen = make([]data.Turn, n)
						seen[i] = prev[i]
					}
					tu, err := g.Step(t, i, actions[i], seen)
					if err != nil {
						return out, err
					}
					a, lp := actions[i], logps[i]
					tu.Action, tu.LogProb = &a, &lp
					cur[i] = tu
				}
				o.Rounds = append(o.Rounds, data.Round{Turns: cur})
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// learnedPolicies returns freshly initialised learned policies over both
// feature layouts, as a study trains them, and their greedy forms.
func learnedPolicies(t *testing.T) []metapolicy.Policy {
	t.Helper()
	var out []metapolicy.Policy
	for i, fz := range metapolicy.Featurizers() {
		net, err := nn.NewMLP[float32]([]int{fz.Width, 64, 64, metapolicy.NumActions}, nn.Tanh)
		if err != nil {
			t.Fatal(err)
		}
		net.Init(uint64(11 + i))
		for j := range net.Params { // sharper than the init, so that actions differ across rows
			net.Params[j] *= 3
		}
		p, err := metapolicy.NewFeaturizedPolicy("learned-"+fz.Version, net, fz)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p, metapolicy.GreedyPolicy{Policy: p})
	}
	for _, name := range []string{metapolicy.HeuristicGate, metapolicy.HeuristicRandom, metapolicy.HeuristicRefine} {
		h, err := metapolicy.ParseHeuristic(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// checkSameBytes plays pol on e under every batch size and worker count and
// holds each run's episodes, as JSON, to the reference runner's bytes.
func checkSameBytes(t *testing.T, e env.Env, pol metapolicy.Policy, opts env.RunOptions) {
	t.Helper()
	want, err := refPlay(e, pol, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 2 {
		t.Fatalf("%s: %d episodes: too few to batch", pol.Name(), len(want))
	}
	wantBytes, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{0, 1, 3, 1000} {
		for _, workers := range []int{1, 2} {
			o := opts
			o.Batch, o.Workers = batch, workers
			got, err := env.Collect(e, pol, o)
			if err != nil {
				t.Fatalf("%s batch %d workers %d: %v", pol.Name(), batch, workers, err)
			}
			gotBytes, _ := json.Marshal(got)
			if string(gotBytes) != string(wantBytes) {
				for k := range min(len(got), len(want)) {
					g, _ := json.Marshal(got[k])
					w, _ := json.Marshal(want[k])
					if string(g) != string(w) {
						t.Fatalf("%s batch %d workers %d: episode %d differs from per-decision play:\n got %s\nwant %s",
							pol.Name(), batch, workers, k, g, w)
					}
				}
				t.Fatalf("%s batch %d workers %d: %d episodes, want %d", pol.Name(), batch, workers, len(got), len(want))
			}
		}
	}
}

// TestBatchedPlaySameBytesSim: on the simulator, batched play — learned
// policies (both layouts, sampled and greedy), baselines, a self-refining
// policy — writes the very episodes per-decision play wrote, for any batch
// size and worker count.
func TestBatchedPlaySameBytesSim(t *testing.T) {
	s := newSim(t, sim.Config{})
	for _, pol := range learnedPolicies(t) {
		for _, greedy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/greedy=%v", pol.Name(), greedy), func(t *testing.T) {
				checkSameBytes(t, s, pol, env.RunOptions{NumTasks: 40, Episodes: 3, Seed: 5, Greedy: greedy})
			})
		}
	}
}

// TestBatchedPlaySameBytesReplay: the same on the shared transcripts, with
// the text critic on (confidences in the features) and tasks of one and
// two recorded rounds and of 3, 5 and 7 agents in one batch.
func TestBatchedPlaySameBytesReplay(t *testing.T) {
	paths := append(testenv.Debates(t, "slm-debate/gsm/gsm_Qwen3-0.6B_*.json"),
		testenv.Debates(t, "more/gsm/gsm_Qwen2.5-1.5B-Instruct_*.json")...)
	e, _, err := replay.Load(paths, transcript.Options{}, replay.WithCritic(true))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []int
	for k := 0; k < e.NumTasks(); k += 3 {
		tasks = append(tasks, k)
	}
	for _, pol := range learnedPolicies(t) {
		if pol.Name() == metapolicy.HeuristicRefine {
			continue // a replay cannot play Self-Refine
		}
		t.Run(pol.Name(), func(t *testing.T) {
			checkSameBytes(t, e, pol, env.RunOptions{Tasks: tasks, Episodes: 2, Seed: 9})
		})
	}
}

// poisoned fails on one agent of one episode's round, after a NaN
// distribution for an earlier agent of the same round, so that both
// checks fire in one round.
type poisoned struct{ metapolicy.Policy }

func (p poisoned) Probs(pr *[metapolicy.NumActions]float64, obs *metapolicy.Observation) error {
	if obs.Round == 2 && obs.Agents[0].Answer != "" && len(obs.Agents) > 2 {
		switch obs.Self {
		case 0:
			*pr = [metapolicy.NumActions]float64{math.NaN(), math.NaN(), math.NaN()}
			return nil
		case 1:
			return fmt.Errorf("poisoned")
		}
	}
	return p.Policy.Probs(pr, obs)
}

// TestBatchedPlaySameError: an episode whose policy fails fails Play with
// the error per-decision play gave (the earliest check of the earliest
// agent), after the same episodes were delivered.
func TestBatchedPlaySameError(t *testing.T) {
	s := newSim(t, sim.Config{})
	pol := poisoned{learnedPolicies(t)[0]}
	opts := env.RunOptions{NumTasks: 30, Episodes: 2, Seed: 1, Workers: 1, Batch: 1}
	var want []string
	wantErr := env.Play(s, pol, opts, func(ep *data.Episode) error { want = append(want, ep.ID); return nil })
	// Per-decision play checked agent 0's draw before it asked about agent 1.
	if wantErr == nil || !regexp.MustCompile(`^env: \S+: task \S+: episode \d: round 2: agent 0: policy \S+ chose \S+ with log-probability NaN$`).MatchString(wantErr.Error()) {
		t.Fatalf("error %v, want agent 0's NaN draw", wantErr)
	}
	for _, batch := range []int{0, 4} {
		for _, workers := range []int{1, 2} {
			opts.Batch, opts.Workers = batch, workers
			var got []string
			err := env.Play(s, pol, opts, func(ep *data.Episode) error { got = append(got, ep.ID); return nil })
			if err == nil || err.Error() != wantErr.Error() || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("batch %d workers %d: %d episodes then %v, want %d then %v", batch, workers, len(got), err, len(want), wantErr)
			}
		}
	}
}

// ioEnv is the simulator marked IOBound, as a live model's Env is.
type ioEnv struct{ *sim.Simulator }

func (ioEnv) IOBound() bool { return true }

// countingPolicy counts its ProbsBatch calls and their largest batch.
type countingPolicy struct {
	metapolicy.BatchPolicy
	calls, most *int
}

func (c countingPolicy) ProbsBatch(p [][metapolicy.NumActions]float64, obs []metapolicy.Observation) error {
	*c.calls++
	*c.most = max(*c.most, len(obs))
	return c.BatchPolicy.ProbsBatch(p, obs)
}

// TestBatchedPlayBatches: Play asks for a round's decisions of many episodes
// in one call (rows of whole teams), and one episode's on an IOBound Env.
func TestBatchedPlayBatches(t *testing.T) {
	s := newSim(t, sim.Config{})
	pol := metapolicy.Batch(learnedPolicies(t)[0])
	for _, c := range []struct {
		e        env.Env
		wantMost int
	}{{s, 40 * 3}, {ioEnv{s}, 3}} {
		var calls, most int
		if _, err := env.Collect(c.e, countingPolicy{pol, &calls, &most}, env.RunOptions{NumTasks: 40, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		if most != c.wantMost {
			t.Errorf("%T: largest batch %d rows in %d calls, want %d", c.e, most, calls, c.wantMost)
		}
	}
}
