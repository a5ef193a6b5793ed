package checkpoints

import (
	"errors"
	"fmt"
)

// The kinds of failure Load, Unmarshal, Decode and the safetensors readers
// report. Each error returned wraps exactly one of them, so callers tell the
// cases apart with errors.Is; the message around it says where (file, offset,
// field) and why.
var (
	// ErrNotCheckpoint: the input does not start with the magic "MPDFCKPT".
	ErrNotCheckpoint = errors.New("not an mpdf checkpoint")
	// ErrVersion: the format version is not one this build reads.
	ErrVersion = errors.New("unknown format version")
	// ErrTruncated: the input ends before the lengths in its prefix say it should.
	ErrTruncated = errors.New("truncated")
	// ErrCorrupt: a checksum mismatch, a zstd frame that does not decode to the
	// announced length, or content that breaks the format's rules (bad JSON,
	// inconsistent sizes, a NaN weight, ...).
	ErrCorrupt = errors.New("corrupt")
	// ErrTooLarge: the input announces more bytes than the reader's limit
	// (WithMaxBytes). Nothing that large has been allocated.
	ErrTooLarge = errors.New("too large")
	// ErrFeatureSchema: a sound file whose feature-schema version differs
	// from the one the caller expects (WithFeatureVersion).
	ErrFeatureSchema = errors.New("feature schema mismatch")
)

// errf wraps kind with a formatted explanation: "kind: explanation".
func errf(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...))
}

// The disagreements of the learned policies of one evaluation about where
// they trained (TrainedReplay, TextCritic, HeldOutSplit): the evaluation
// must say, and errors.Is tells its caller which setting to ask for.
var (
	// ErrTrainedEnvs: policies trained on different replays.
	ErrTrainedEnvs = errors.New("policies trained on different replays")
	// ErrTrainedCritics: policies trained with the text critic and without.
	ErrTrainedCritics = errors.New("policies trained with and without the text critic")
	// ErrTrainedSplits: policies trained on different replay splits.
	ErrTrainedSplits = errors.New("policies trained on different replay splits")
)
