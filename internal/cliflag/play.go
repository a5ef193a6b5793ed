package cliflag

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
)

// Kind adds --kind: the task of transcripts whose names do not say, read
// when the flags are parsed by answer.ParseKind (answer.Kind is a
// pflag.Value). Every command thus refuses a bad kind with one message
// naming the flag and the kinds, and lists them in its help.
func Kind(f *pflag.FlagSet, k *answer.Kind, what string) {
	f.Var(k, "kind", what+", when the file names do not say (gsm is gsm8k)")
}

// EnvKind adds --kind to a command whose --env (bound to envSpec) is
// recorded with what it trains, as mpdf train's is: the kind becomes the
// spec's kind= part before the command runs, so that a resume or an
// evaluation of the run reopens the transcripts read the same way.
func EnvKind(cmd *cobra.Command, envSpec *string) {
	var kind answer.Kind
	Kind(cmd.Flags(), &kind, "task of replayed transcripts (as a kind= part of --env)")
	intoEnv(cmd, envSpec, func(spec string) (string, error) { return replay.SpecWithKind(spec, kind) }, func() string { return "--kind " + string(kind) })
}

// EnvCritic adds --critic, the spec's critic=on part given as a flag
// (mpdf study's --critic, which study opens the environment with itself):
// it becomes part of --env before the command runs, so that a run records
// it and an evaluation weighs it against its checkpoints' as if written in
// the spec.
func EnvCritic(cmd *cobra.Command, envSpec *string) {
	var on bool
	cmd.Flags().BoolVar(&on, "critic", false, "replay: fill the missing confidence with the critic's read from each answer's text; shorthand for critic=on in --env")
	intoEnv(cmd, envSpec, func(spec string) (string, error) { return replay.SpecWithCritic(spec, on) }, func() string { return "--critic" })
}

// intoEnv sets *envSpec to with(*envSpec) once the flags are parsed; an
// error names the flag (flag()) and --env.
func intoEnv(cmd *cobra.Command, envSpec *string, with func(string) (string, error), flag func() string) {
	BeforeRun(cmd, func() error {
		spec, err := with(*envSpec)
		if err != nil {
			return fmt.Errorf("%s and --env: %w", flag(), err)
		}
		*envSpec = spec
		return nil
	})
}

// Sim binds the simulator's configuration flags to cfg: the one definition
// of the commands that play in the simulator (simulate, eval, view, study).
func Sim(f *pflag.FlagSet, cfg *sim.Config) {
	Bind(f, &cfg.Seed, "sim-seed", "", " (difficulties, answers); --seed draws the episodes")
	Bind(f, &cfg.Tasks, "sim-tasks", "", fmt.Sprintf(" (0 = %d)", sim.DefaultTasks))
	Bind(f, &cfg.Agents, "agents", "", fmt.Sprintf(" in the simulator (0 = %d)", sim.DefaultAgents))
	Bind(f, &cfg.MissingConfidence, "missing-confidence", "")
}
