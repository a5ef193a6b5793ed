// Package open opens an environment from its spec — the one string the
// command line's --env takes and a training run records: "sim" for the
// simulator (env/sim) or a replay spec (replay.Syntax) for recorded
// transcripts (env/replay) — and sets up what is played on it: a training
// run's two sides and an evaluation with the learned checkpoints'
// defaults. It sits above env/sim, env/replay and checkpoints, which each
// build one thing and open nothing of the others.
//
//	e, rounds, err := open.Env("replay:runs/gsm_*.json,critic=on", open.Config{Log: os.Stderr})
//	tasks, err := open.Tasks(e, "test", 0.3, 1, 0) // one side of the split
//	rs, err := env.Evaluate(e, policies, env.RunOptions{Tasks: tasks, Rounds: rounds})
//
// [Env] opens whatever a spec names, as mpdf eval, train, study and view
// do; [Replay] a parsed replay spec with options of its own; [Split] and
// [Training] a training run's two sides; [Eval] what mpdf eval plays,
// defaulting the environment, critic and split to the learned
// checkpoints'; [Tasks] one side of an evaluation's split. Its errors
// (ErrSpec, ErrConfig, ...) name no flag: a caller words them.
package open
