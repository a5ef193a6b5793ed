// Package run trains a policy from start to end: the supervised stage,
// SoftRankPO fine-tuning online (in an env.Env) or offline (on a [Source]:
// rollout files, a pack, rows in memory), checkpoints and resume, the choice
// of best.mpdf, the metrics log, the curve and the final evaluation. The
// mpdf train command is a thin wiring of flags into [Config]; a Go program
// trains the same way (see the example):
//
//	res, err := run.Train(ctx, run.Config{Train: cfg, Env: sim, EnvName: "sim"}, run.Hooks{})
//	// res.Policy is the trained network
//
// # In memory or in a directory
//
// With [Config].Dir empty a run writes nothing and returns the trained
// network in [Result].Policy (what a cross-validation fold wants). With a
// directory it writes there:
//
//	run.lock            who writes the directory (pid and host)
//	run.json            which run the directory belongs to: its run id and start config hash
//	ckpt-%08d.mpdf      after the supervised stage (step 0) and every iteration; Keep of them
//	best.mpdf           the best checkpoint by BestMetric
//	metrics.jsonl       one line per RL iteration (offline) or step (online) (StepLine; Config.MetricsEvery), and online a held-out point every Config.EvalEvery iterations (HeldOutPoint)
//	curve.png           reward, KL, entropy and action shares over the whole run (≤ 2,000 points a series)
//	policy.safetensors  best.mpdf's weights, with its step and SHA-256 (export.go)
//	eval.json           online: the final evaluation against the heuristics and its verdict (EvalFile)
//
// # What a run directory survives
//
// A directory belongs to one run: a fresh run refuses a directory holding
// files ([ErrNotEmpty]) unless [Config].Overwrite, and checks every input
// before it touches the directory, so a typo never costs a run its history.
// One process writes a directory at a time ([LockDir], [ErrLocked]).
// Checkpoints are written atomically, so a crash or kill -9 loses at most
// the iteration under way; [Latest], then [Config].Resume, continues from
// the latest checkpoint and gives the bytes of a run never interrupted. A
// resume refuses a checkpoint of another run, a switch between online and
// offline, and other data than the run trained on unless
// [Config].AllowOtherData. A cancelled context stops at the next iteration
// with the last checkpoint intact. The rules in full are beside their code:
// dir.go, identity.go, lock.go, position.go.
//
// # Feature layouts and teachers
//
// An online run reads the layout Train.Features (mpdf-features/v1 by
// default, or v2) and its checkpoints record it, so that
// checkpoints.LoadPolicy reads the policy back through the same layout.
//
// The online supervised stage clones a heuristic (Train.SFT.Labels), or,
// with [Config].Teacher, any labels: the hindsight and pivotal teachers of
// package trainer/teacher plug in there. Offline decision records of
// another width than the built-in features train with
// [Config].FeatureWidth ([CheckData] takes a pack's); checkpoints then
// record the pack's feature version, or custom-WIDTH, so that such a policy
// is never taken for one of the built-in features.
//
// [Hooks] report the run as it goes: the resolved config, progress per
// stage, SFT and iteration summaries, and a slog.Logger for warnings.
// Errors are returned, never logged and dropped: a metrics line that
// cannot be written stops the run.
package run
