// Package corpus says what a set of debate transcripts holds, read with
// package data/transcript: [Read] tabulates the files (mpdf data corpus)
// and [Baselines] scores the two fixed behaviours every transcript
// records.
//
//	t, err := corpus.Read(paths, transcript.Options{})
//	err = corpus.Write(os.Stdout, t)
//
// Read tabulates a set of files (mpdf data corpus): per file the
// model(s), task, agents × rounds, questions, unreadable share per round,
// round-0 and final-round majority accuracy, the share of questions whose
// round 0 is unanimous, and how often a revision fixed or broke an answer;
// then a pooled row where a question debated in several files counts once.
//
// [Baselines] scores two fixed behaviours per file: persist (the round-0
// majority: every agent keeps its first answer) and debate (the majority of
// the last recorded round), with metapolicy.TeamAnswer; [ByModel] pools them
// by task and model.
package corpus
