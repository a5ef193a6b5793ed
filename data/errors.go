package data

import (
	"errors"
	"fmt"
)

// Pos is where a record came from: its file (or stream name) and 1-based
// line number.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// RecordError is a record that failed validation. Field is the JSON path of
// the offending value (rounds[2].turns[0].confidence), "json" for a line
// that is not the JSON of one object, or "line" for a line over the length
// limit; Reason says what is wrong in words.
//
// Errors from Validate carry no position; the Reader fills File and Line.
type RecordError struct {
	File   string
	Line   int
	Field  string
	Reason string
	// Torn marks the torn end of a file: a last record cut short, most
	// likely by a writer killed mid-write (the records before it are
	// whole). mpdf collect --resume drops it and writes the file again.
	Torn bool
}

// Error formats the error as file:line: field: reason, or field: reason
// when it has no position.
func (e *RecordError) Error() string {
	if e.File == "" && e.Line == 0 {
		return e.Field + ": " + e.Reason
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Reason)
}

// Pos returns the position of the rejected record.
func (e *RecordError) Pos() Pos { return Pos{e.File, e.Line} }

// ErrNoGold is returned (wrapped, with the episode id) by Rewards and
// Decisions for an episode without a gold answer: design §2 gives it no
// reward, so it yields no training decision. Callers count it with
// errors.Is and report the count; it is not a validation failure.
var ErrNoGold = errors.New("no gold answer, so no reward")

// fieldErr builds an unpositioned RecordError.
func fieldErr(field, format string, args ...any) *RecordError {
	return &RecordError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// asError returns e as an error, keeping a nil *RecordError a nil error.
func asError(e *RecordError) error {
	if e == nil {
		return nil
	}
	return e
}

// The refusals of MergeShards that its caller words in its own terms.
var (
	// ErrNoShardRecord: an input has no shard record beside it, so it is
	// not the output of a sharded collection.
	ErrNoShardRecord = errors.New("no shard record")
	// ErrExists: the output exists and MergeOptions.Overwrite is not set.
	ErrExists = errors.New("output exists")
	// ErrOtherBuild: shards of different builds (CollectShard.Build), and
	// MergeOptions.AllowOtherBuild is not set.
	ErrOtherBuild = errors.New("shards of different builds")
)
