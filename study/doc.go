// Package study runs the experiment that checks whether a learned
// meta-policy deliberates better or cheaper than the fixed protocols:
// cross-validated training and evaluation of learned policies against
// every baseline on the same tasks and episode seeds, with intervals that
// resample questions. `mpdf study` is its command line.
//
// # The design
//
// [CrossValidate] takes an env.Env (a replay of transcripts, or the
// simulator) and a [Config]. Tasks are described by Describe: the unit of a task is its
// normalised question text (NormaliseQuestion, with the task kind), so a
// question debated in several files — other models, other team sizes — is
// one unit, and its model is read from the transcript file name
// (transcript.ParseName; DyLAN's files, whose names say none, are
// GPT-3.5-turbo's). A replayed task is played, in training and on the test
// side, for the rounds its transcript recorded (env.TaskRounder): in a
// corpus that mixes one- and three-round files, a one-round task's agents
// do not refine again and pay their last answer's tokens twice.
//
// For each of Config.Seeds seeds, Folds deals the units into Config.Folds
// folds by a seeded shuffle (ByQuestion; no question is in two folds), or
// makes one fold per model (ByModel: leave one model out, a test on a
// model never trained on; the same question text may then appear in
// training under another model — the policy sees features of the debate,
// never the text — so this fold mode tests transfer across models, not
// across questions). For each fold and each token cost λ of
// Config.Lambdas, Config.Trainer trains a policy on the other folds' tasks;
// the learned policies and every baseline (Config.Baselines, by default
// env.Baselines) then play the fold's tasks with the same episode seeds
// (common random numbers), Config.Episodes episodes each. Folds run in
// parallel (Config.Workers); the rows do not depend on it.
//
// The hindsight oracle (OracleName) is added per task: the fixed protocol
// (random excluded) with the most correct episodes, fewest tokens on a tie,
// chosen knowing the answer. It is a ceiling of "pick the protocol per
// question", not a policy.
//
// # Training seam
//
// Trainer is a function type; TrainInMemory, the default, is the online
// run of `mpdf train` (trainer/run.Train) in memory, without a directory,
// on one kernel thread so that a fold's bits do not depend on the
// machine; teacher.Train is the same run with a hindsight or pivotal
// supervised stage. Another training run can be plugged in through
// Config.Trainer.
//
// # Results
//
// Study.Rows holds one ResultRow per task × policy × seed (correct and scored
// episodes, tokens, action counts); WriteResults writes them as JSON.
// Summarise pools them, over all tasks and per model: accuracy with a
// percentile bootstrap interval resampled by question (package stats;
// a question's rows over files and seeds are drawn together), tokens per
// task, action shares, and for each learned policy the paired difference
// "learned − baseline" (same task, same seed) with its interval. Summary
// writes report.md (WriteMarkdown) or JSON; Dir.Write adds report.html,
// the same tables for a browser (view.WriteReport, from the summary's JSON
// and the rows). The same Config and Env give the same bytes.
//
// A study directory follows a training run's rules (outfile.Dir): OpenDir
// takes it before the study runs (Check first refuses a bad config, so a
// typo never touches it), refusing one that holds files unless overwrite
// (which removes only results.json, report.md, pareto.png, report.html and
// their temporary files), and holding study.lock, so that a second study into it,
// in any process, is refused naming the first; Dir.Write writes the files.
//
// # Shards
//
// A study's cells — one per learned policy (seed, fold, λ) and one per
// fold's baselines (seed, fold) — can be split between N processes or
// machines: RunShard runs shard K's cells (ShardRule: cell i to shard
// i mod N, training cells dealt first) into a directory's record
// (ShardName), rewritten as each cell ends so that a stopped shard resumes
// (ShardOptions.Resume); the record hashes what shapes the rows
// (ShardInputs). MergeShards checks the N records agree — same N, same
// inputs, none missing, repeated or unfinished — and returns the Study
// CrossValidate would have, row for row, so its files are the same bytes.
// `mpdf study --shard K/N` and `mpdf study merge` are its command line.
//
// # Comparing studies after the fact
//
// Compare works on results.json files alone (ReadResults streams and
// checks them): it pools one or more studies' rows (distinct studies, e.g.
// one per task kind), breaks accuracy and tokens down by kind or model
// (CompareConfig.By) with a chosen policy's paired differences; pairs the
// rows with another study's by transcript file, task id and seed — not by
// task index, which another set of files numbers otherwise — for "policy P
// here − policy Q there" (CompareConfig.Pair; rows without a partner are an
// error); and adds hindsight ceilings (CompareConfig.Ceilings): per model,
// kind or model × kind the fixed protocol most accurate on these very rows,
// an upper bound of a policy that picks one protocol per group. Intervals
// are the study's bootstrap clustered by task id (the hash of the question
// text), so on one study's rows the pooled numbers are report.md's.
// `mpdf study compare` is its command line.
package study
