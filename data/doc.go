// Package data reads and writes rollouts, the episode and decision records
// (told apart by their "kind" field) that policies are trained on (design
// §5), and turns episodes into training decisions with the differential
// consensus reward of design §2. docs/rollouts.md is the user's page for
// the formats, docs/schema/ holds their JSON Schemas.
//
// # Reading rollouts
//
//	r, err := data.Open([]string{"runs/*.jsonl.zst"}, data.ReaderOptions{Skip: true, OnReject: report})
//	for {
//		rec, err := r.Next() // rec.Episode or rec.Decision, with rec.Pos
//		if err == io.EOF { break }
//		...
//	}
//	fmt.Println(r.Counts()) // read = accepted + rejected, always
//
// [Open] expands globs (a pattern matching nothing is an error), reads the
// files in order and tells gzip and zstd by their magic bytes. Memory is
// bounded whatever the input size: a line longer than
// [ReaderOptions].MaxLineBytes is rejected and skipped without being
// buffered, and the zstd window is bounded ([ReaderOptions].ZstdWindow).
// A rejected record is a [*RecordError] reported as file:line: field: reason
// (Field is the JSON path, rounds[2].turns[0].confidence); with Skip the
// reader counts it and reads on, without it [Reader.Next] returns it. I/O
// and decompression errors end the read. [ValidateFiles] checks whole files
// (mpdf data validate). [Episode.Validate] and [Decision.Validate] state
// every rule.
//
// # Writing rollouts
//
// [NewWriter] and [Create] (compression by extension) write records as JSON
// Lines after validating them, deterministically. Create writes to a
// temporary file beside the target (package outfile): [Writer.Close] renames
// it over the target, [Writer.Abort] removes it, and a symbolic link, device
// or directory is refused as a target. [Writer.Commit] makes the records so
// far durable at the target while writing goes on (ending the gzip member or
// zstd frame, syncing), for writers that must survive a kill; [Continue]
// reopens such a file after one, keeping its records and dropping a torn
// last one.
//
// # From episodes to training decisions
//
// [Rewards] computes design §2 for an episode; [Decisions] turns it into one
// [Decision] per agent per deliberation round, features from
// metapolicy.Featurize, grouped by [RewardConfig].GroupBy (task by default,
// or episode, or task and round). [NewDecisionStream] does this over a
// [Reader], passing decision records through, and delivers [Columns], the
// batch the trainer consumes: float32 features, uint8 actions, float64
// rewards and log-probabilities (NaN = absent), group ids.
//
// [WritePack] stores decisions as a pack, columnar shards that train many
// epochs without re-parsing JSON; [OpenPack] and [Pack.Scan] read it back.
// A DecisionStream and a pack's scanner are both a [ColumnReader], so
// training reads JSON Lines or packs alike. [CollectStats] summarises a data
// set for mpdf data stats.
//
// Readers, Writers, DecisionStreams and Packs are not safe for concurrent
// use. What the format leaves open (answers compared as written, episodes
// without gold, duplicate ids, torn files, ...) is listed in validate.go.
package data
