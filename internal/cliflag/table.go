package cliflag

// A Shared flag is one that more than one command has, with the one meaning
// it has in all of them (issue 21: one meaning per flag, one word per
// concept). cmd/mpdf's TestFlagsMeanOneThing holds every command to Table:
// a flag in two commands must be here, with this type and default in each
// (or the exception listed, with its reason), and each command's usage text
// must say the words of Says. A new flag that means something else takes
// another name; a flag renamed after a release keeps its old spelling for
// one more, listed in CHANGELOG.md.
type Shared struct {
	Name    string
	Type    string // pflag's type name, as the help shows it
	Default string // as the help shows it
	Meaning string
	// Says are words every command's usage text of the flag contains (any
	// case): the meaning, anchored in each command's help.
	Says []string
	// Except are the commands whose type or default differs, by path
	// ("mpdf study"); an empty Type or Default there is the table's.
	Except map[string]Exception
}

// An Exception is one command's other type or default of a shared flag;
// NoDefault says that command's default is empty (not given: the command
// decides, and its usage says how).
type Exception struct {
	Type, Default, Why string
	NoDefault          bool
}

// kindType is the type name of --kind, the task kinds: answer.Kind's Type,
// written out so that this package imports no domain package (cmd/mpdf's
// TestFlagsMeanOneThing holds every --kind to it).
const kindType = "gsm8k|mmlu|arithmetic|math"

// Table lists the flags of more than one command.
var Table = []Shared{
	{Name: "agent-policy", Type: "string", Default: "shared", Meaning: "networks of the agents: shared (one for all), slot (one per agent position) or model (one per backbone model)", Says: []string{"one per agent position", "one per backbone model"}},
	{Name: "agents", Type: "int", Default: "0", Meaning: "team size N ≥ 2 (0: the simulator's default, 3)", Says: []string{"team size"},
		Except: map[string]Exception{"mpdf collect": {Default: "3", Why: "collect's team is live LLM agents, not the simulator's"}}},
	{Name: "by", Type: "string", Default: "", Meaning: "break the rows down by a key of the rows (file, model, kind…)", Says: []string{"break the rows down by"}},
	{Name: "critic", Type: "bool", Default: "false", Meaning: "fill a turn's missing confidence with the critic's read from its text: the deterministic arithmetic check, never an LLM (that is collect's judge)", Says: []string{"critic's read"}},
	{Name: "env", Type: "string", Default: "sim", Meaning: "environment played: sim, or replay:FILES[,kind=K][,layout=L][,critic=on|off]", Says: []string{"environment"}},
	{Name: "episodes", Type: "int", Default: "1", Meaning: "episodes played per task (question)", Says: []string{"per task"}},
	{Name: "episodes-per-task", Type: "int", Default: "8", Meaning: "training episodes per task: one SoftRankPO group", Says: []string{"SoftRankPO group"},
		Except: map[string]Exception{"mpdf study": {Default: "4", Why: "a study trains a policy per fold, seed and λ: shorter runs"}}},
	{Name: "eval-every", Type: "int", Default: "0", Meaning: "every this many RL iterations (and before the first), a held-out point: the policy's held-out accuracy, tokens and actions on up to 200 held-out tasks (0: 5)", Says: []string{"held-out point"}},
	{Name: "feature-width", Type: "int", Default: "0", Meaning: "features per decision record (0: as read)", Says: []string{"decision record"}},
	{Name: "features", Type: "string", Default: "", Meaning: "feature layout a learned policy reads (mpdf-features/v1, mpdf-features/v2, or mpdf-features/peers-v1, the attention network's)", Says: []string{"feature layout"}},
	{Name: "loss", Type: "loss", Default: "clip", Meaning: "policy loss: clip (PPO-clip surrogate + β·KL) or rank-match (the paper's implicit-reward fit)", Says: []string{"policy loss", "rank-match"}},
	{Name: "credit", Type: "credit", Default: "taken", Meaning: "which rewards a decision's advantage comes from: taken (its action's, ranked in its group), counterfactual (its three actions' with the other agents held fixed, ranked as its own group; a replay) or baseline (its action's minus the policy-weighted mean of the three; a replay)", Says: []string{"other agents held fixed"}},
	{Name: "gamma", Type: "float64", Default: "0", Meaning: "discount γ of the return-to-go each decision is ranked on (0: the round's own reward)", Says: []string{"return-to-go"}},
	{Name: "greedy", Type: "bool", Default: "false", Meaning: "a learned policy takes its most probable action instead of sampling", Says: []string{"most probable action"}},
	{Name: "group-by", Type: "key", Default: "task", Meaning: "decisions ranked together, the SoftRankPO group: task, episode or task+round", Says: []string{"SoftRankPO group"}},
	{Name: "held-out", Type: "float64", Default: "0.3", Meaning: "share of the tasks (questions) held out as the test side", Says: []string{"held out"}},
	{Name: "hidden", Type: "sizes", Default: "64,64", Meaning: "hidden layer sizes of the policy network", Says: []string{"hidden layer sizes"}},
	{Name: "iterations", Type: "int", Default: "40", Meaning: "SoftRankPO (RL) iterations", Says: []string{"iterations"},
		Except: map[string]Exception{"mpdf study": {Default: "20", Why: "a study trains a policy per fold, seed and λ: shorter runs"}}},
	{Name: "json", Type: "bool", Default: "false", Meaning: "print the command's result as JSON", Says: []string{"JSON"}},
	{Name: "kind", Type: kindType, Default: "", Meaning: "task kind of transcripts whose file names do not say", Says: []string{"task of", "when the file names do not say"}},
	{Name: "lambda", Type: "float64", Default: "0", Meaning: "the reward's token cost λ per 1000 tokens: one number (a list is mpdf study --lambdas)", Says: []string{"λ per 1000 tokens"}},
	{Name: "lambdas", Type: "numbers", Default: "0", Meaning: "token costs λ per 1000 tokens, comma-separated: one result per cost", Says: []string{"token costs λ per 1000 tokens", "comma-separated"},
		Except: map[string]Exception{"mpdf study": {Default: "0,0.1,0.5", Why: "a study draws the accuracy–tokens curve of the learned policies"}}},
	{Name: "layout", Type: "string", Default: "auto", Meaning: "file layout of transcripts: auto, debate or agora", Says: []string{"file layout"}},
	{Name: "lr", Type: "float64", Default: "0.0003", Meaning: "Adam learning rate of SoftRankPO (the RL stage)", Says: []string{"Adam learning rate"}},
	{Name: "max-line-bytes", Type: "int", Default: "67108864", Meaning: "longest record (one JSON line) written or read, in bytes", Says: []string{"longest record"}},
	{Name: "missing-confidence", Type: "float64", Default: "0", Meaning: "probability that a simulated turn's confidence is missing", Says: []string{"confidence is missing"}},
	{Name: "model", Type: "string", Default: "", Meaning: "the model (LLM) by name: the one asked (collect), the one that wrote the transcripts (import, corpus)", Says: []string{"model"}},
	{Name: "out", Type: "string", Default: "", Meaning: "where the command writes",
		Except: map[string]Exception{
			"mpdf study": {Default: "runs/study", Why: "a study's directory"},
			"mpdf train": {Default: "runs/mpdf", Why: "a run's directory"},
		}},
	{Name: "overwrite", Type: "bool", Default: "false", Meaning: "replace what an existing --out holds", Says: []string{"--out"}},
	{Name: "policy", Type: "string", Default: "", Meaning: "policy: a heuristic name, or a learned policy's file (.mpdf checkpoint or .safetensors export)", Says: []string{"polic"},
		Except: map[string]Exception{
			"mpdf eval":        {Type: "stringSlice", Default: "[]", Why: "eval compares several: repeat it or give a comma-separated list"},
			"mpdf view":        {Type: "stringSlice", Default: "[]", Why: "view shows several side by side, as eval compares them"},
			"mpdf simulate":    {Default: "random", Why: "rollouts for offline training explore every action"},
			"mpdf data signal": {Default: "debate", Why: "the behaviour whose decisions are measured"},
		}},
	{Name: "no-baselines", Type: "bool", Default: "false", Meaning: "play only the policies given, without the heuristic baselines", Says: []string{"heuristic baselines"}},
	{Name: "quiet", Type: "bool", Default: "false", Meaning: "less on stderr (no progress bar, no readability report)"},
	{Name: "resamples", Type: "int", Default: "2000", Meaning: "bootstrap resamples of the confidence intervals", Says: []string{"bootstrap resamples"}},
	{Name: "resume", Type: "bool", Default: "false", Meaning: "continue the work in --out where it stopped", Says: []string{"continue"}},
	{Name: "recipe", Type: "string", Default: "", Meaning: "a named recipe over the environment's defaults: paper, the method of Learning to Deliberate (design.md §10); flags given win", Says: []string{"named recipe"}},
	{Name: "rounds", Type: "int", Default: "3", Meaning: "deliberation rounds after round 0", Says: []string{"deliberation rounds"},
		Except: map[string]Exception{
			"mpdf eval":  {Default: "0", Why: "0: the most a replay recorded, 3 in the simulator"},
			"mpdf view":  {Default: "0", Why: "0: the most a replay recorded, 3 in the simulator (as eval)"},
			"mpdf study": {Default: "0", Why: "0: the most a replay recorded, 3 in the simulator"},
		}},
	{Name: "seed", Type: "uint64", Default: "1", Meaning: "seed of what the command draws at random", Says: []string{"seed"}},
	{Name: "shard", Type: "string", Default: "", Meaning: "run only shard K/N of the work (0 ≤ K < N) and record it for a merge", Says: []string{"shard K/N"}},
	{Name: "sft-epochs", Type: "int", Default: "5", Meaning: "epochs of the supervised stage before RL", Says: []string{"epochs", "supervised"},
		Except: map[string]Exception{"mpdf study": {Default: "0", Why: "not given: the recipe's, which depends on the environment and teacher (0 given skips the stage)"}}},
	{Name: "sft-labels", Type: "string", Default: "threshold:0.95:0.15", Meaning: "teacher of the supervised stage", Says: []string{"teacher of the supervised stage"},
		Except: map[string]Exception{"mpdf study": {NoDefault: true, Why: "not given: the recipe's, which depends on the environment"}}},
	{Name: "sim-seed", Type: "uint64", Default: "0", Meaning: "seed of the simulator's task pool", Says: []string{"simulator's task pool"}},
	{Name: "sim-tasks", Type: "int", Default: "0", Meaning: "size of the simulator's task pool", Says: []string{"simulator's task pool"}},
	{Name: "skip-invalid", Type: "bool", Default: "false", Meaning: "skip rejected records instead of stopping", Says: []string{"skip rejected records"}},
	{Name: "split-seed", Type: "uint64", Default: "0", Meaning: "seed of the train/test split of the tasks", Says: []string{"seed of", "split"}},
	{Name: "split", Type: "string", Default: "", Meaning: "one side of a seeded task split: train, test or all", Says: []string{"seeded task split"}},
	{Name: "tasks", Type: "int", Default: "0", Meaning: "number of tasks played (0: all)", Says: []string{"number of tasks"}},
	{Name: "tasks-per-iter", Type: "int", Default: "64", Meaning: "training tasks per SoftRankPO iteration", Says: []string{"tasks", "iteration"},
		Except: map[string]Exception{"mpdf study": {Default: "32", Why: "a study trains a policy per fold, seed and λ: shorter runs"}}},
	{Name: "w-global", Type: "float64", Default: "1", Meaning: "reward weight of the global term", Says: []string{"global term"}},
	{Name: "w-local", Type: "float64", Default: "1", Meaning: "reward weight of the local term", Says: []string{"local term"}},
	{Name: "workers", Type: "int", Default: "0", Meaning: "how much runs at once (0: one per CPU); results do not depend on it", Says: []string{"at once"}},
}
