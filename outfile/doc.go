// Package outfile writes output files so that nothing half-written
// replaces a good file and nothing is removed that the program did not
// create.
//
//	f, err := outfile.Create("episodes.jsonl")
//	if err != nil { ... }
//	defer f.Close() // removes the temporary file unless committed
//	... write to f ...
//	return f.Commit()
//
// [Create] checks the target first: it must be missing or a regular file.
// A symbolic link, a directory, a device, a FIFO or a socket is refused
// with an error naming it (writing "through" a link or over a device node
// is never what an output flag means). The bytes then go to a hidden
// temporary file beside the target (.NAME.tmp-*, the same directory, so
// that the rename is atomic). Commit syncs it and renames it over the
// target, checked again just before; [File.Close] without a [File.Commit]
// removes the temporary file, which the program created, and leaves the
// target as it was.
//
// A long-running writer that must keep what it has written through a
// crash (mpdf collect) commits early and goes on writing: after the first
// Commit the open file is the target itself, each later Commit syncs it,
// and [File.Truncate] cuts it back to what was last committed.
//
// [WriteFile] is the one-shot form. A process killed between CreateTemp and
// the rename leaves its temporary file behind; [TempPattern] matches such
// leftovers for a clean-up.
//
// An output directory that one process writes at a time (a training run's,
// a study's) is a [Dir]: [OpenDir] takes the flock of its lock file (the
// holder's pid and host in it, for the refusal a second writer gets),
// [Dir.Fresh] refuses a directory that holds files unless asked to overwrite,
// and then removes only the writer's own, and [Dir.Abandon] removes what this
// process created when the work fails before writing anything worth
// keeping, so that the retry starts clean.
package outfile
