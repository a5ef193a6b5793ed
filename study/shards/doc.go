// Package shards splits a study's cells between N processes and merges
// them back (mpdf study --shard K/N, mpdf study merge): [Run] runs
// shard K's cells (study.Cell: one learned policy, a training run and its
// test episodes, or one fold's baselines) and records them, with hashes of
// what shapes their rows ([Inputs]), in its directory's
// study.ShardName, rewritten as each cell ends so that a stopped shard
// resumes; [Merge] checks the N records agree and joins them into
// the study.Study that study.CrossValidate would have returned, row for
// row, so that its files are the unsharded study's, byte for byte:
//
//	r, err := shards.Run(e, cfg, "runs/shard-0", shards.Options{Shard: 0, Shards: 4})
//	…
//	s, err := shards.Merge([]string{"runs/shard-0", …}, "runs/study")
//	d, err := study.OpenDir("runs/study", false)
//	err = d.Publish(s, os.Stdout, false)
//
// [Rule] says which cells a shard runs (docs/scale.md).
package shards
