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
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/metapolicy"
)

func init() { register(newEvalCmd) }

// evalFlags are eval's flags.
type evalFlags struct {
	sim                              sim.Config
	env, split                       string
	kind                             transcript.Task
	policies                         []string
	tasks, episodes, rounds, workers int
	seed, splitSeed                  uint64
	heldOut                          float64
	greedy, noBaselines, quiet       bool
	asJSON                           bool
}

func newEvalCmd() *cobra.Command {
	var fl evalFlags
	cmd := &cobra.Command{
		Use:  "eval [--env sim|" + replaySyntax + "] [--policy SPEC,...] [flags]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(cmd, &fl) },
	}
	fl.add(cmd)
	return cmd
}

// add defines the flags on cmd.
func (fl *evalFlags) add(cmd *cobra.Command) {
	fl.addPlay(cmd)
	addKindFlag(cmd.Flags(), &fl.kind, "task of replayed transcripts (as a kind= part of --env)")
	cmd.Flags().BoolVar(&fl.asJSON, "json", false, "print the results as a JSON array")
}

// addPlay defines the flags that say what is played and how: eval's, and
// view's when it plays policies as eval does.
func (fl *evalFlags) addPlay(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&fl.env, "env", "sim", "environment: sim, or "+replaySyntax+" of debate transcripts")
	f.StringSliceVarP(&fl.policies, "policy", "p", nil, "policies to play (heuristic names, .mpdf or .safetensors files)")
	f.BoolVar(&fl.noBaselines, "no-baselines", false, "do not add the heuristic baselines")
	f.IntVar(&fl.tasks, "tasks", 0, "number of tasks, the first of the environment or of the split side (0 = all)")
	f.IntVar(&fl.episodes, "episodes", 1, "sampled episodes per task and policy")
	f.IntVar(&fl.rounds, "rounds", 0, "deliberation rounds after round 0 (0 = 3 in the simulator, the most recorded in a replay)")
	f.Uint64Var(&fl.seed, "seed", 1, "seed of the episodes"+seedWas0)
	f.StringVar(&fl.split, "split", "", "play one side of a seeded task split: train, test or all (default: all, but test for a checkpoint trained on a replay split)")
	f.Float64Var(&fl.heldOut, "held-out", 0.3, "fraction of the tasks held out as the test side of --split")
	f.Uint64Var(&fl.splitSeed, "split-seed", 0, "seed of --split")
	f.BoolVar(&fl.greedy, "greedy", false, "learned policies take their most probable action instead of sampling (heuristics unaffected)")
	f.IntVar(&fl.workers, "workers", 0, "episodes played at once (0 = one per CPU); the results do not depend on it")
	f.BoolVarP(&fl.quiet, "quiet", "q", false, "no progress bar and no transcript report")
	addSimFlags(cmd, &fl.sim)
	addEnvCriticFlag(cmd, &fl.env) // envflags.go
}

// runEval opens the environment, resolves the policies, plays them and
// prints.
func runEval(cmd *cobra.Command, fl *evalFlags) error {
	if fl.tasks < 0 || fl.episodes < 1 || fl.rounds < 0 || fl.workers < 0 {
		return fmt.Errorf("--tasks %d, --episodes %d, --rounds %d, --workers %d: want tasks ≥ 0, episodes ≥ 1, rounds ≥ 0, workers ≥ 0",
			fl.tasks, fl.episodes, fl.rounds, fl.workers)
	}
	e, pols, list, err := fl.open(cmd)
	if err != nil {
		return err
	}
	results, err := fl.play(e, pols, list)
	if err != nil {
		return err
	}
	if fl.asJSON {
		return results.WriteJSON(cmd.OutOrStdout())
	}
	return fl.print(cmd.OutOrStdout(), e, pols, results, len(list))
}

// open opens the environment, resolves the policies (with the baselines)
// and lists the tasks to play, defaulting the environment, critic and
// split to the checkpoints' as the help says (mpdf view plays the same).
func (fl *evalFlags) open(cmd *cobra.Command) (env.Env, []resolvedPolicy, []int, error) {
	stderr := cmd.ErrOrStderr()
	given, err := resolvePolicies(fl.policies)
	if err != nil {
		return nil, nil, nil, err
	}
	if !cmd.Flags().Changed("env") {
		if fl.env, err = checkpointEnv(stderr, given, fl.env); err != nil {
			return nil, nil, nil, err
		}
	}
	e, defRounds, err := replay.OpenEnv(fl.env, replay.EnvConfig{Sim: fl.sim, Kind: fl.kind, Log: logUnless(fl.quiet, stderr)})
	if err != nil {
		return nil, nil, nil, err
	}
	pols, err := evalPolicies(given, env.Baselines(e), fl.noBaselines)
	if err != nil {
		return nil, nil, nil, err
	}
	if fl.rounds == 0 {
		fl.rounds = defRounds
	}
	if r, ok := e.(*replay.Env); ok {
		if e, err = checkpointCritic(stderr, r, fl.env, pols); err != nil {
			return nil, nil, nil, err
		}
		if err := checkpointSplit(stderr, cmd.Flags(), pols, fl); err != nil {
			return nil, nil, nil, err
		}
	}
	list, err := replay.Tasks(e, fl.split, fl.heldOut, fl.splitSeed, fl.tasks)
	return e, pols, list, err
}

// logUnless is w, or nil (no transcript reports) when quiet.
func logUnless(quiet bool, w io.Writer) io.Writer {
	if quiet {
		return nil
	}
	return w
}

// play evaluates each policy on the tasks of list, on one progress bar.
func (fl *evalFlags) play(e env.Env, pols []resolvedPolicy, list []int) (env.Results, error) {
	var results env.Results
	err := fl.each(pols, list, "eval", func(p metapolicy.Policy, opts env.RunOptions) error {
		rs, err := env.Evaluate(e, []metapolicy.Policy{p}, opts)
		results = append(results, rs...)
		return err
	})
	return results, err
}

// each calls play for each policy with the options of the flags on the
// tasks of list (greedy only for learned policies), on one progress bar
// labelled label.
func (fl *evalFlags) each(pols []resolvedPolicy, list []int, label string, play func(metapolicy.Policy, env.RunOptions) error) error {
	per := len(list) * fl.episodes
	bar := progress.New(per*len(pols), label, fl.quiet)
	for i, p := range pols {
		opts := env.RunOptions{
			Tasks: list, Episodes: fl.episodes, Rounds: fl.rounds, Seed: fl.seed,
			Greedy: fl.greedy && p.Learned, Workers: fl.workers, Progress: bar.Func(i * per),
		}
		if err := play(p.Policy, opts); err != nil {
			return err
		}
	}
	_ = bar.Finish()
	return nil
}

// print writes the table of results and the verdict of each learned
// policy against the fixed protocols evaluated with it (none when
// --no-baselines left them out).
func (fl *evalFlags) print(o io.Writer, e env.Env, pols []resolvedPolicy, results env.Results, tasks int) error {
	side := ""
	if fl.split != "" && fl.split != "all" {
		side = fmt.Sprintf(", %s split (held out %.2f, seed %d)", fl.split, fl.heldOut, fl.splitSeed)
	}
	fmt.Fprintf(o, "env %s: %d tasks%s × %d episodes, %d rounds, seed %d\n",
		replay.Title(e), tasks, side, fl.episodes, fl.rounds, fl.seed)
	if err := results.WriteTable(o); err != nil {
		return err
	}
	var learned []string
	for _, p := range pols {
		if p.Learned {
			learned = append(learned, p.Name())
		}
	}
	r, isReplay := e.(*replay.Env)
	return env.WriteVerdicts(o, results, learned, !isReplay || r.Critic())
}

// resolvePolicies resolves the --policy values, each file read once.
func resolvePolicies(specs []string) ([]resolvedPolicy, error) {
	var pols []resolvedPolicy
	for _, s := range specs {
		p, err := resolvePolicy(s)
		if err != nil {
			return nil, err
		}
		pols = append(pols, p)
	}
	return pols, nil
}

// evalPolicies adds to the policies given the heuristic baselines the
// environment can play, first, when no heuristic is given (unless
// noBaselines). Results are named by policy: a name twice is an error.
func evalPolicies(given []resolvedPolicy, baselines []string, noBaselines bool) ([]resolvedPolicy, error) {
	var pols []resolvedPolicy
	if !noBaselines && !slices.ContainsFunc(given, func(p resolvedPolicy) bool { return !p.Learned }) {
		for _, b := range baselines {
			p, err := resolvePolicy(b)
			if err != nil {
				return nil, err
			}
			pols = append(pols, p)
		}
	}
	pols = append(pols, given...)
	if len(pols) == 0 {
		return nil, fmt.Errorf("no policy to evaluate: give --policy, or drop --no-baselines")
	}
	seen := map[string]bool{}
	for _, p := range pols {
		if seen[p.Name()] {
			return nil, fmt.Errorf("policy %s given twice (results are named by policy)", p.Name())
		}
		seen[p.Name()] = true
	}
	return pols, nil
}

// checkpointEnv is the --env to evaluate on when none is given: the replay
// the learned policies given trained on (checkpoints.TrainedReplay), so
// that a policy trained on transcripts is not silently scored on the
// simulator; def when none trained on a replay.
func checkpointEnv(log io.Writer, pols []resolvedPolicy, def string) (string, error) {
	found, from, err := checkpoints.TrainedReplay(pols)
	if err != nil || found == "" {
		return def, err
	}
	fmt.Fprintf(log, "eval: %s trained on %s: evaluating on that replay (--env sim plays the simulator)\n", from, found)
	return found, nil
}

// checkpointCritic defaults the critic= part of a replay spec that has none
// to the learned checkpoints': on when their runs trained with critic=on,
// since a policy that learned to read the text critic's confidence would
// otherwise be scored without it. A spec that says critic= is played as it
// says, with a warning for each checkpoint whose run read the confidence
// otherwise (checkpoints.CriticMismatch); checkpoints that disagree need
// the spec to say.
func checkpointCritic(log io.Writer, r *replay.Env, envSpec string, pols []resolvedPolicy) (env.Env, error) {
	sp, err := replay.ParseSpec(envSpec)
	if err != nil {
		return nil, fmt.Errorf("--env: %w", err)
	}
	if sp.CriticSet {
		warn := "eval: warning: %s trained with the text critic (critic=on), but --env %s plays critic=off: the policy loses the confidence it learned from\n"
		if sp.Critic {
			warn = "eval: warning: %s trained without the text critic (its confidence was missing), but --env %s plays critic=on: the policy sees an input it never trained on\n"
		}
		for _, p := range pols {
			known := p.Confidence == checkpoints.ConfidenceTextCritic || p.Confidence == checkpoints.ConfidenceNone
			if known && checkpoints.CriticMismatch(p.Confidence, sp.Critic) {
				fmt.Fprintf(log, warn, p.Name(), envSpec)
			}
		}
		return r, nil
	}
	on, with, err := checkpoints.TextCritic(pols)
	if err != nil || !on {
		return r, err
	}
	fmt.Fprintf(log, "eval: %s trained with the text critic (critic=on in its --env): playing the replay with it (critic=off in --env plays without)\n", strings.Join(with, ", "))
	return r.With(replay.WithCritic(true))
}

// checkpointSplit defaults --split to the held-out side of the replay split
// a learned checkpoint trained on (checkpoints.HeldOutSplit), and
// --held-out and --split-seed to that split's, unless given: evaluated on
// every question, a policy would be scored on the ones it trained on.
func checkpointSplit(log io.Writer, f *pflag.FlagSet, pols []resolvedPolicy, fl *evalFlags) error {
	if fl.split == "all" {
		return nil
	}
	sp, from, err := checkpoints.HeldOutSplit(pols, f.Changed("held-out") && f.Changed("split-seed"))
	if err != nil || sp == nil {
		return err
	}
	if !f.Changed("held-out") {
		fl.heldOut = sp.HeldOut
	}
	if !f.Changed("split-seed") {
		fl.splitSeed = sp.SplitSeed
	}
	if fl.split != "" {
		return nil
	}
	fl.split = "test"
	fmt.Fprintf(log, "eval: %s trained on %s with %.2f of the questions held out (split seed %d): evaluating on the held-out side (--split all plays every question)\n",
		from, sp.Env, fl.heldOut, fl.splitSeed)
	if !replay.SameFiles(sp.Env, fl.env) {
		fmt.Fprintf(log, "eval: warning: --env %s is not the run's %s: the split holds out the same questions only on the same files\n", fl.env, sp.Env)
	}
	return nil
}
