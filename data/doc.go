// Package data owns the rollout formats of design §5 and everything that reads
// or writes them: the episode and decision records, their validation, the
// streaming JSON Lines reader and writer (.jsonl, .gz, .zst), the
// differential consensus reward of design §2 that turns episodes into training
// decisions, and the packed columnar shards that train many epochs without
// re-parsing JSON. docs/rollouts.md is the user's page for all of it; the
// JSON Schemas are docs/schema/{episode,decision}.schema.json.
//
// # Records
//
// Episode and Decision (episode.go) are the two record kinds, told apart by
// their "kind" field. Episode.Validate and Decision.Validate state every rule;
// a violation is a *RecordError whose Field is the JSON path of the value
// (rounds[2].turns[0].confidence) and whose Reason says what is wrong.
//
// # Reading
//
//	r, err := data.Open([]string{"runs/*.jsonl.zst"}, data.ReaderOptions{Skip: true, OnReject: report})
//	for {
//		rec, err := r.Next() // rec.Episode or rec.Decision, with rec.Pos
//		if err == io.EOF { break }
//		...
//	}
//	fmt.Println(r.Counts()) // read = accepted + rejected, always
//
// Open expands globs (a pattern matching nothing is an error), reads the
// files in order and tells gzip and zstd by their magic bytes. Memory is
// bounded whatever the input size: a line longer than MaxLineBytes is
// rejected and skipped without being buffered, and the zstd window is
// bounded (ZstdWindow). Rejected records are reported as file:line: field:
// reason; with Skip the reader counts them and reads on, without it Next
// returns the *RecordError. I/O and decompression errors end the read.
//
// Decoding is strict: unknown fields are rejected (so that typos surface),
// required fields must be present, null means absent, NaN and Infinity
// (not JSON, but written by Python's json module) are named as such.
// Field names match case-insensitively, as in encoding/json. Flat decision
// records take a reflection-free fast path whose results FuzzReader checks
// against the general encoding/json path.
//
// # Writing
//
// NewWriter and Create (compression by extension) write records as JSON
// Lines after validating them, deterministically. Create writes to a
// temporary file beside the target (package outfile): Close renames it
// over the target, Abort removes it, and a symbolic link, device or
// directory is refused as a target. Commit makes the records so far
// durable at the target while writing goes on (ending the gzip member or
// zstd frame, syncing), for writers that must survive a kill; Continue
// reopens such a file after one, keeping its records and dropping a torn
// last one.
//
// # Reward and training decisions
//
// Rewards computes design §2 for an episode; Decisions turns it into one
// Decision per agent per deliberation round, features from
// metapolicy.Featurize, grouped by RewardConfig.GroupBy (task by default,
// or episode, or task and round). DecisionStream does this over a Reader,
// passing decision records through, and delivers Columns.
//
// # Columns and packs
//
// Columns is the column batch the trainer consumes: float32 features
// (row-major), uint8 actions, float64 rewards and log-probabilities (NaN =
// absent), uint32 group ids into a group-name table. Both DecisionStream and
// a pack's Scan are ColumnReaders, so training can read JSON Lines or packs
// alike.
//
// WritePack writes a pack directory: zstd-compressed columnar shards of at
// most RowsPerShard rows and a manifest.json with the provenance (source
// files with sizes and SHA-256, counts, reward configuration, feature
// version, tool version). OpenPack and ReadShard read it back shard by
// shard into reused Columns, optionally only some columns; every header
// field is checked against the manifest and the file size before anything
// is allocated, and every value is checked. Bytes are deterministic.
//
// # Stats
//
// CollectStats summarises a data set for `mpdf data stats`: counts per
// kind, team sizes, rounds, episodes without gold, team accuracy, actions,
// reward summary, groups.
//
// # Decisions made where design §1–§5 are silent
//
//   - An answer is correct when it is not empty and equals the gold string;
//     answers are compared as written (normalise them when writing).
//   - Episodes without gold yield no reward and no decision: Rewards and
//     Decisions return an error wrapping ErrNoGold; DecisionStream, packs and
//     stats count them.
//   - The zero RewardConfig means the defaults (1, 1, 0): all-zero
//     coefficients would make every reward 0.
//   - id, task and group must not be empty; an episode has at least round 0;
//     a logprob is optional in rounds ≥ 1 and forbidden in round 0.
//   - Features must fit float32, the trainer's precision; packs store them
//     as float32 (unpacking returns them rounded to float32).
//   - Blank lines are not records and are not counted; a line over the
//     length limit is rejected even when it is only spaces.
//   - Episode ids should be unique within a data set. A repeated id is
//     accepted but counted (Counts.DuplicateIDs) and listed
//     (Reader.Duplicates): ids are kept as 64-bit hashes, some 40 bytes
//     per episode read.
//   - A JSON object with a key twice, or a string that is not valid UTF-8,
//     is rejected with the path of the key or string: encoding/json would
//     keep the last value or replace the bad bytes silently.
//   - The Writer and the Reader share one line limit
//     (DefaultMaxLineBytes, 64 MiB; SetMaxLineBytes and
//     ReaderOptions.MaxLineBytes): what one writes, the other reads.
//   - A file cut mid-record (a writer killed mid-write) ends in a rejected
//     record marked RecordError.Torn; the records before it are read.
//     Writer.Commit ends a gzip member or zstd frame, so a compressed file
//     is whole up to the last Commit.
//   - A file named twice (or matched by two patterns) is read once.
//
// Readers, Writers, DecisionStreams and Packs are not safe for concurrent
// use.
package data
