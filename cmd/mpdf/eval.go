package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

func init() { register(newEvalCmd) }

func newEvalCmd() *cobra.Command {
	var (
		cfg                              env.SimConfig
		envSpec, split                   string
		kind                             transcript.Task
		specs                            []string
		tasks, episodes, rounds, workers int
		seed, splitSeed                  uint64
		heldOut                          float64
		greedy, noBaselines, quiet       bool
		asJSON                           bool
	)
	cmd := &cobra.Command{
		Use:   "eval [--env sim|" + replaySyntax + "] [--policy SPEC,...] [flags]",
		Short: "Compare policies on the same tasks and seeds (accuracy, tokens, actions)",
		Long: `Eval plays every policy on the same tasks with the same seeds (common
random numbers) and prints, per policy, the team accuracy of the final round
with a 95% bootstrap interval that resamples tasks (a task's episodes are
drawn together: they are not independent), the round-0 accuracy, the mean
tokens per task and the share of each action.

Environments (--env):
  sim                   the built-in simulator (default; --sim-* flags)
  replay:GLOB[,GLOB]    debate transcripts (the layouts mpdf import reads)
                        replayed: an agent's k-th refine takes its k-th
                        recorded revision (then it keeps its answer),
                        persist keeps the previous one, concede adopts a
                        peer's. The transcripts hold no answer written
                        without the peers, so Self-Refine (refine) is not
                        played there; confidences are missing unless
                        critic=on fills them with the critic's read from
                        each answer's text (answer.Critic). Parts kind=K
                        (gsm8k, mmlu, arithmetic, math: the task, when the
                        file names do not say) and layout=L (auto, debate,
                        agora: when detection misreads a file) say how to
                        read them, e.g.
                        replay:logs/*.json,kind=math,layout=debate,critic=on

Policies (--policy, repeatable or comma-separated): when no heuristic is
named, the heuristic baselines (` + strings.Join(metapolicy.HeuristicNames(), ", ") + `;
persist is majority's old name) that the environment can play are
evaluated first, then the learned policies given; --no-baselines drops
them. majority keeps round 0's answers; gate persists when round 0 is
unanimous and debates otherwise; until-consensus refines until the team is
unanimous. ` + policySpecHelp + `

--split train|test evaluates on one side of a seeded split of the tasks
(--held-out is the test fraction, --split-seed the seed); replayed questions
are split by question, so that one debated in several files stays on one
side. --tasks then takes the first N tasks of that side. A checkpoint
trained online on a replay records its split: on a replay, --split then
defaults to test and --held-out and --split-seed to the checkpoint's, so
that it is not scored on the questions it trained on (eval says so on
stderr); --split all plays every question. A checkpoint trained on a replay, given
without --env, is evaluated on the replay it trained on (its recorded spec;
eval says so on stderr) rather than on the simulator. Likewise a replay spec without
a critic= part takes the critic of the checkpoints' runs: on when they
trained with critic=on (eval says so on stderr), so that a policy is scored
on the confidence it learned from; a critic= part that differs from a
checkpoint's run is played as given, with a warning.

After the table, each learned policy gets a verdict against the fixed
protocols evaluated with it (majority, debate, gate, until-consensus, and
threshold where agents have a confidence: the simulator, or a replay with
critic=on): accuracy differences paired by question with 95% bootstrap
intervals, the points on the accuracy–tokens frontier marked (*), and one
sentence on what to use. --json prints the results only.`,
		Example: `  mpdf eval
  mpdf eval --policy runs/best.mpdf --tasks 200 --episodes 2
  mpdf eval --env 'replay:debates/gsm_*.json' --policy runs/mpdf/best.mpdf --split test --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if tasks < 0 || episodes < 1 || rounds < 0 || workers < 0 {
				return fmt.Errorf("--tasks %d, --episodes %d, --rounds %d, --workers %d: want tasks ≥ 0, episodes ≥ 1, rounds ≥ 0, workers ≥ 0",
					tasks, episodes, rounds, workers)
			}
			if !cmd.Flags().Changed("env") {
				if envSpec, err = checkpointEnv(cmd.ErrOrStderr(), specs, envSpec); err != nil {
					return err
				}
			}
			e, defRounds, err := openEvalEnv(cmd.ErrOrStderr(), envSpec, kind, false, cfg, quiet)
			if err != nil {
				return err
			}
			pols, err := evalPolicies(specs, env.Baselines(e), noBaselines)
			if err != nil {
				return err
			}
			if rounds == 0 {
				rounds = defRounds
			}
			if r, ok := e.(*replay.Env); ok {
				if e, err = checkpointCritic(cmd.ErrOrStderr(), r, envSpec, pols); err != nil {
					return err
				}
				if err := checkpointSplit(cmd.ErrOrStderr(), cmd.Flags(), pols, envSpec, &split, &heldOut, &splitSeed); err != nil {
					return err
				}
			}
			list, err := evalTasks(e, split, heldOut, splitSeed, tasks)
			if err != nil {
				return err
			}
			per := len(list) * episodes
			bar := newBar(per*len(pols), "eval", quiet)
			var results env.Results
			for i, p := range pols {
				opts := env.RunOptions{
					Tasks: list, Episodes: episodes, Rounds: rounds, Seed: seed,
					Greedy: greedy && p.Learned, Workers: workers, Progress: barProgress(bar, i*per),
				}
				rs, err := env.Evaluate(e, []metapolicy.Policy{p.Policy}, opts)
				if err != nil {
					return err
				}
				results = append(results, rs...)
			}
			_ = bar.Finish()
			o := cmd.OutOrStdout()
			if asJSON {
				return results.WriteJSON(o)
			}
			side := ""
			if split != "" && split != "all" {
				side = fmt.Sprintf(", %s split (held out %.2f, seed %d)", split, heldOut, splitSeed)
			}
			name := e.Name()
			if r, ok := e.(*replay.Env); ok && strings.Count(name, ",") > 0 {
				name = fmt.Sprintf("replay of %d files (%d questions)", strings.Count(name, ",")+1, r.NumTasks())
			}
			fmt.Fprintf(o, "env %s: %d tasks%s × %d episodes, %d rounds, seed %d\n",
				name, len(list), side, episodes, rounds, seed)
			if err := results.WriteTable(o); err != nil {
				return err
			}
			// The verdict of each learned policy against the fixed
			// protocols evaluated with it (none when --no-baselines
			// left them out).
			r, isReplay := e.(*replay.Env)
			confidence := !isReplay || r.Critic()
			for _, p := range pols {
				if !p.Learned {
					continue
				}
				v, err := env.Judge(results, p.Name(), confidence)
				if err != nil {
					continue
				}
				fmt.Fprintln(o)
				if err := v.WriteTable(o); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&envSpec, "env", "sim", "environment: sim, or "+replaySyntax+" of debate transcripts")
	addKindFlag(f, &kind, "task of replayed transcripts (as a kind= part of --env)")
	f.StringSliceVarP(&specs, "policy", "p", nil, "policies to evaluate (heuristic names, .mpdf or .safetensors files)")
	f.BoolVar(&noBaselines, "no-baselines", false, "do not add the heuristic baselines")
	f.IntVar(&tasks, "tasks", 0, "number of tasks, the first of the environment or of the split side (0 = all)")
	f.IntVar(&episodes, "episodes", 1, "sampled episodes per task and policy")
	f.IntVar(&rounds, "rounds", 0, "deliberation rounds after round 0 (0 = 3 in the simulator, the most recorded in a replay)")
	f.Uint64Var(&seed, "seed", 1, "seed of the episodes"+seedWas0)
	f.StringVar(&split, "split", "", "evaluate on one side of a seeded task split: train, test or all (default: all, but test for a checkpoint trained on a replay split)")
	f.Float64Var(&heldOut, "held-out", 0.3, "fraction of the tasks held out as the test side of --split")
	f.Uint64Var(&splitSeed, "split-seed", 0, "seed of --split")
	f.BoolVar(&greedy, "greedy", false, "learned policies take their most probable action instead of sampling (heuristics unaffected)")
	f.IntVar(&workers, "workers", 0, "episodes played at once (0 = one per CPU); the results do not depend on it")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar and no transcript report")
	f.BoolVar(&asJSON, "json", false, "print the results as a JSON array")
	addSimFlags(cmd, &cfg)
	addEnvCriticFlag(cmd, &envSpec) // envflags.go
	return cmd
}

// evalPolicies resolves the --policy values, adding the heuristic baselines
// the environment can play first when none is named (unless noBaselines).
func evalPolicies(specs, baselines []string, noBaselines bool) ([]resolvedPolicy, error) {
	named := false
	for _, s := range specs {
		named = named || isHeuristicSpec(s)
	}
	var all []string
	if !named && !noBaselines {
		all = append(all, baselines...)
	}
	all = append(all, specs...)
	if len(all) == 0 {
		return nil, fmt.Errorf("no policy to evaluate: give --policy, or drop --no-baselines")
	}
	seen := map[string]bool{}
	var pols []resolvedPolicy
	for _, s := range all {
		p, err := resolvePolicy(s)
		if err != nil {
			return nil, err
		}
		if seen[p.Name()] {
			return nil, fmt.Errorf("policy %s given twice (results are named by policy)", p.Name())
		}
		seen[p.Name()] = true
		pols = append(pols, p)
	}
	return pols, nil
}

// replaySyntax is the replay form of --env, for help texts and errors.
const replaySyntax = "replay:GLOB[,GLOB...][,kind=K][,layout=L][,critic=on|off]"

// openEvalEnv opens the environment of --env and returns it with its
// default number of rounds. kind is --kind (a kind= part), critic study's
// --critic (a critic=on part); each may repeat the spec, not contradict
// it. Transcript reports go to log unless quiet.
func openEvalEnv(log io.Writer, spec string, kind transcript.Task, critic bool, cfg env.SimConfig, quiet bool) (env.Env, int, error) {
	switch {
	case spec == "sim" || spec == "simulator":
		if critic {
			return nil, 0, fmt.Errorf("--critic: only a replay has texts to read (--env replay:...)")
		}
		sim, err := env.NewSimulator(cfg)
		return sim, env.DefaultRounds, err
	case strings.HasPrefix(spec, replay.SpecPrefix):
		sp, err := replay.ParseSpec(spec)
		if err != nil {
			return nil, 0, fmt.Errorf("--env: %w", err)
		}
		if kind != "" && sp.Options.Task != "" && kind != sp.Options.Task {
			return nil, 0, fmt.Errorf("--kind %s and --env %s: two tasks; give one", kind, spec)
		}
		if sp.Options.Task == "" {
			sp.Options.Task = kind
		}
		if critic && sp.CriticSet && !sp.Critic {
			return nil, 0, fmt.Errorf("--critic and --env %s (critic=off): give one", spec)
		}
		sp.Critic = sp.Critic || critic
		paths, err := expandPaths(sp.Globs)
		if err != nil {
			return nil, 0, fmt.Errorf("--env %s: %w", spec, err)
		}
		e, reps, err := replay.Load(paths, sp.Options, sp.EnvOptions()...)
		if err != nil {
			return nil, 0, err
		}
		if !quiet {
			if err := transcript.WriteReports(log, reps); err != nil {
				return nil, 0, err
			}
		}
		r := e.Rounds()
		if r < 1 {
			return nil, 0, fmt.Errorf("--env %s: the transcripts record no deliberation round after round 0", spec)
		}
		return e, r, nil
	}
	return nil, 0, fmt.Errorf("--env %q: want sim or %s", spec, replaySyntax)
}

// sameReplayFiles reports whether two replay specs name the same files read
// the same way (their critic= parts aside, which checkpointCritic handles).
func sameReplayFiles(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := replay.ParseSpec(a)
	sb, err2 := replay.ParseSpec(b)
	return err1 == nil && err2 == nil && slices.Equal(sa.Globs, sb.Globs) && sa.Options == sb.Options
}

// checkpointCritic defaults the critic= part of a replay spec that has none
// to the learned checkpoints': on when their runs trained with critic=on
// (checkpoints.ConfidenceSource), since a policy that learned to read the
// text critic's confidence would otherwise be scored without it. A spec
// that says critic= is played as it says, with a warning for each
// checkpoint whose run read the confidence otherwise; checkpoints that
// disagree need the spec to say.
func checkpointCritic(log io.Writer, r *replay.Env, envSpec string, pols []resolvedPolicy) (env.Env, error) {
	sp, err := replay.ParseSpec(envSpec)
	if err != nil {
		return nil, fmt.Errorf("--env: %w", err)
	}
	var with, without []string // checkpoints trained with and without the text critic
	for _, p := range pols {
		switch p.Confidence {
		case checkpoints.ConfidenceTextCritic:
			with = append(with, p.Name())
		case checkpoints.ConfidenceNone:
			without = append(without, p.Name())
		}
	}
	if sp.CriticSet {
		if sp.Critic {
			for _, name := range without {
				fmt.Fprintf(log, "eval: warning: %s trained without the text critic (its confidence was missing), but --env %s plays critic=on: the policy sees an input it never trained on\n", name, envSpec)
			}
		} else {
			for _, name := range with {
				fmt.Fprintf(log, "eval: warning: %s trained with the text critic (critic=on), but --env %s plays critic=off: the policy loses the confidence it learned from\n", name, envSpec)
			}
		}
		return r, nil
	}
	switch {
	case len(with) == 0:
		return r, nil
	case len(without) > 0:
		return nil, fmt.Errorf("%s trained with the text critic (critic=on) and %s without: add critic=on or critic=off to --env", with[0], without[0])
	}
	fmt.Fprintf(log, "eval: %s trained with the text critic (critic=on in its --env): playing the replay with it (critic=off in --env plays without)\n", strings.Join(with, ", "))
	return r.With(replay.WithCritic(true))
}

// evalTasks lists the tasks to play: one side of a split when asked, then
// the first n (0 = all).
func evalTasks(e env.Env, split string, heldOut float64, seed uint64, n int) ([]int, error) {
	var list []int
	if split == "" || split == "all" {
		list = make([]int, e.NumTasks())
		for i := range list {
			list[i] = i
		}
	} else {
		var train, test []int
		var err error
		if r, ok := e.(*replay.Env); ok {
			train, test, err = r.Split(heldOut, seed)
		} else {
			train, test, err = replay.Split(e.NumTasks(), heldOut, seed)
		}
		if err != nil {
			return nil, fmt.Errorf("--split: %w", err)
		}
		switch split {
		case "train":
			list = train
		case "test":
			list = test
		default:
			return nil, fmt.Errorf("--split %q: want train or test (or all)", split)
		}
	}
	if n > len(list) {
		what := "the environment has"
		if split != "" && split != "all" {
			what = "the " + split + " side has"
		}
		return nil, fmt.Errorf("--tasks %d: %s %d tasks", n, what, len(list))
	}
	if n > 0 {
		list = list[:n]
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no task to play (the %s side is empty: check --held-out)", split)
	}
	return list, nil
}

// checkpointSplit defaults --split to the held-out side of the replay split
// a learned checkpoint trained on, and --held-out and --split-seed to that
// split's, unless given: evaluated on every question, a policy would be
// scored on the ones it trained on. Checkpoints of different splits need
// --held-out and --split-seed given.
func checkpointSplit(log io.Writer, fl *pflag.FlagSet, pols []resolvedPolicy, envSpec string, split *string, heldOut *float64, seed *uint64) error {
	if *split == "all" {
		return nil
	}
	given := fl.Changed("held-out") && fl.Changed("split-seed")
	var sp *replaySplit
	var from string
	for _, p := range pols {
		if p.Split == nil {
			continue
		}
		if sp != nil && *p.Split != *sp && !given {
			return fmt.Errorf("%s and %s trained on different replay splits (held out %g, seed %d; held out %g, seed %d): give --split with --held-out and --split-seed, or --split all",
				from, p.Name(), sp.HeldOut, sp.SplitSeed, p.Split.HeldOut, p.Split.SplitSeed)
		}
		sp, from = p.Split, p.Name()
	}
	if sp == nil {
		return nil
	}
	if !fl.Changed("held-out") {
		*heldOut = sp.HeldOut
	}
	if !fl.Changed("split-seed") {
		*seed = sp.SplitSeed
	}
	if *split != "" {
		return nil
	}
	*split = "test"
	fmt.Fprintf(log, "eval: %s trained on %s with %.2f of the questions held out (split seed %d): evaluating on the held-out side (--split all plays every question)\n",
		from, sp.Env, *heldOut, *seed)
	if !sameReplayFiles(sp.Env, envSpec) {
		fmt.Fprintf(log, "eval: warning: --env %s is not the run's %s: the split holds out the same questions only on the same files\n", envSpec, sp.Env)
	}
	return nil
}

// checkpointEnv is the --env to evaluate on when none is given: the replay
// spec the learned checkpoints among specs trained on (run.Position's
// env), so that a policy trained on transcripts is not silently scored on
// the simulator; def when none trained on a replay. Checkpoints of
// different replays need --env.
func checkpointEnv(log io.Writer, specs []string, def string) (string, error) {
	var found, from string
	for _, s := range specs {
		s = strings.TrimSpace(s)
		if s == "" || isHeuristicSpec(s) {
			continue
		}
		p, err := resolvePolicy(s)
		if err != nil {
			return "", err
		}
		if p.TrainedEnv == "" {
			continue
		}
		pos := p.TrainedEnv
		if found != "" && pos != found {
			return "", fmt.Errorf("%s trained on %s and %s on %s: give --env", from, found, s, pos)
		}
		found, from = pos, s
	}
	if found == "" {
		return def, nil
	}
	fmt.Fprintf(log, "eval: %s trained on %s: evaluating on that replay (--env sim plays the simulator)\n", from, found)
	return found, nil
}
