// Package study runs the experiment that checks whether a learned
// meta-policy deliberates better or cheaper than the fixed protocols:
// cross-validated training and evaluation of learned policies against
// every baseline on the same tasks and episode seeds, with intervals that
// resample questions. `mpdf study` is its command line.
//
//	cfg := study.DefaultConfig()           // or DefaultConfigFor("replay") on transcripts
//	s, err := study.CrossValidate(e, cfg)  // e: a replay of transcripts, or the simulator
//	sum, err := s.Summarise()
//	err = sum.WriteMarkdown(os.Stdout)     // report.md
//
// To write a study's files into a directory as the command does, take it
// with [OpenDir] and call [Dir.CrossValidate]: results.json, report.md,
// pareto.png and report.html, or nothing when the study fails. [Resolve]
// completes a Config as the command does (the transcript recipe, a
// [Teacher]'s trainer for the labels it handles, the supervised epochs).
//
// # The design
//
// [CrossValidate] describes each task ([Describe]): its unit is the
// normalised question text, so a question debated in several files is one
// unit, and its model comes from the file name. For each of Config.Seeds
// seeds, [Folds] deals the units into folds by a seeded shuffle
// ([ByQuestion]) or makes one fold per model ([ByModel], leave one model
// out). For each fold and token cost λ, Config.Trainer ([Trainer];
// [TrainInMemory] by default) trains a policy on the other folds; the
// learned policies and every baseline then play the fold's tasks with the
// same episode seeds (common random numbers). The hindsight oracle
// ([OracleName]) is added per task: a ceiling, not a policy. Folds run in
// parallel (Config.Workers); the rows do not depend on it.
//
// # Results
//
// [Study].Rows holds one [ResultRow] per task × policy × seed;
// [Study.WriteResults] writes them as JSON. [Study.Summarise] pools them,
// over all tasks and per model, with bootstrap intervals resampled by
// question and paired differences "learned − baseline". The same Config
// and Env give the same bytes.
//
// # Rooms by job
//
// This package is the cross-validation the others use: [NewPlan] deals a
// study into its cells ([Cell]: one fold's baselines, or one learned
// policy per seed, fold and λ), [Plan.Run] plays one, [CrossValidate]
// runs them all. Three packages beside it each hold one job:
//
//   - study/shards: Run runs shard K of N of a study's cells into a
//     directory's record, resumable; Merge joins the N records into
//     the [Study] CrossValidate would have returned, byte for byte (`mpdf
//     study --shard K/N`, `mpdf study merge`).
//   - study/ablate: Ablate runs one of the ablations (AblationNames) with
//     the study's folds, RunStability the stability study's curves;
//     CrossValidateOrAblate writes a study or either into a [Dir] (`mpdf
//     study --ablate`).
//   - study/compare: Compare works on results.json files alone
//     (ReadResults): it pools studies, breaks accuracy and tokens down by
//     kind or model, pairs one study's rows with another's by file, task
//     and seed, and adds hindsight ceilings (`mpdf study compare`).
package study
