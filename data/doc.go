// Package data owns the rollout formats of SPEC §5 and everything that reads
// or writes them: the episode and decision records, their validation, the
// streaming JSON Lines reader and writer (.jsonl, .gz, .zst), the
// differential consensus reward of SPEC §2 that turns episodes into training
// decisions, and the packed columnar shards that train many epochs without
// re-parsing JSON.
package data
