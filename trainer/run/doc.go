// Package run owns a training run: the supervised stage, SoftRankPO
// fine-tuning online (in an env.Env) or offline (on a Source: rollout
// files, a pack, rows in memory), checkpoints and resume, the choice of
// best.mpdf, the metrics log, the curve and the final evaluation. The
// mpdf train command is a thin wiring of flags into Config; a Go program
// trains the same way:
//
//	res, err := run.Train(ctx, run.Config{Train: cfg, Env: sim, EnvName: "sim"}, run.Hooks{})
//	// res.Policy is the trained network
//
// # In memory or in a directory
//
// With Config.Dir empty a run writes nothing and returns the trained
// network in Result.Policy (what a cross-validation fold wants). With a
// directory it writes there:
//
//	run.lock            who writes the directory (pid and host)
//	run.json            which run the directory belongs to: its run id and start config hash
//	ckpt-%08d.mpdf      after the supervised stage (step 0) and every iteration; Keep of them
//	best.mpdf           the best checkpoint by BestMetric
//	metrics.jsonl       one line per RL step (StepLine)
//	curve.png           reward, KL, entropy and action shares over the whole run
//	policy.safetensors  best.mpdf's weights, with its step and SHA-256 (export.go)
//	eval.json           online: the final evaluation against the heuristics and its verdict (EvalFile)
//
// # What a run directory survives
//
// A directory belongs to one run. A fresh run refuses a directory holding
// files (ErrNotEmpty) unless Config.Overwrite, which removes only the
// files above. Every input (config, initial weights, data paths, a pack's
// feature width and version, the best metric) is checked before the
// directory is touched, so a typo never costs a run its history; offline,
// that includes one full streaming pass over the data (a torn JSONL line,
// a missing or corrupt shard, data without a decision fail here, before
// anything is written). A fresh run that fails before its first
// checkpoint removes what it wrote (metrics.jsonl, run.json, and the lock
// file and directory when it made them), so the retry is not refused.
//
// A directory trusts only its own run. Every checkpoint carries the run's
// identity in its header: the run id, fixed at the start and derived from
// what defines the run (the configuration but for the total iterations,
// the feature layout, the data's hash or the environment and split, the
// initial weights), so that the same seed and data still give the same
// bytes; and the SHA-256 of the configuration it was trained with.
// run.json names the directory's run. Latest and a resume refuse, by
// name, any checkpoint there whose header names another run (one copied
// in from elsewhere), and the checkpoints.Manager of a run counts and
// prunes only its own step files and never replaces another run's
// best.mpdf. Checkpoints of builds before run ids (no run in the header)
// are taken as the directory's run's; in a directory without run.json
// they must agree among themselves, and the resume writes run.json.
//
// One process writes a directory at a time: LockDir takes an exclusive
// flock on run.lock (outfile.TryLockFile; no lock where flock does not
// exist) and writes the holder's pid and host into it, which the refusal
// of a second writer (ErrLocked) quotes. The kernel drops the flock when
// its process dies, so the file a killed run leaves is simply taken over.
//
// Checkpoints are written atomically (checkpoints.Manager), so a crash or
// kill -9 loses at most the iteration under way. Resume (Latest, then
// Config.Resume) continues from the latest checkpoint with the optimiser
// moments, step count and random state, giving the bytes of a run never
// interrupted; it truncates metrics.jsonl to the checkpoint's step (lines
// a killed process wrote after it, a torn last line), so the log, the
// curve and Result.Shares describe one history. A cancelled context
// (SIGINT, SIGTERM in mpdf train) stops at the next iteration, epoch or
// chunk with the last checkpoint intact, and cuts metrics.jsonl back to it;
// so does a run that fails (a full disk, a write error).
//
// Each checkpoint stores the Position: the iteration reached, the
// environment (online) or the paths and SHA-256 of the data (offline), and
// the Options given at the start (evaluation tasks, checkpoints kept, best
// metric). A resume refuses to switch an offline run to online or back,
// and refuses other data than the run trained on unless
// Config.AllowOtherData.
//
// # Feature layouts and teachers
//
// An online run reads the layout Train.Features (mpdf-features/v1 by
// default, or v2: metapolicy.FeaturizerFor): its network's width, its
// supervised labels and its RL decisions follow it, and its checkpoints
// and policy.safetensors record it, so that checkpoints.LoadPolicy reads
// the policy back through the same layout.
//
// The online supervised stage clones a heuristic (Train.SFT.Labels), or,
// with Config.Teacher, any labels: the hindsight and pivotal teachers of
// package teacher (teacher.RunTeacher) plug in there, DAgger rounds
// included, so that `mpdf train`, `mpdf study` and a Go program train
// through this one loop.
//
// # Features of your own
//
// Offline decision records of another width than the built-in features
// train with Config.FeatureWidth (CheckData takes a pack's); checkpoints
// then record the pack's feature version, or custom-WIDTH, so that such a
// policy is never taken for one of the built-in features.
//
// # Hooks
//
// Hooks report the run as it goes: Start (the resolved config), Progress
// (per stage: sft epochs, rl iterations, eval episodes), SFT and Iteration
// summaries, and a slog.Logger for warnings (skipped non-finite steps).
// Errors are returned, never logged and dropped: a metrics line that
// cannot be written stops the run.
package run
