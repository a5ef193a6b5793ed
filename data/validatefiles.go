package data

import (
	"fmt"
	"io"
)

// ValidateOptions say how ValidateFiles reads and what it lists.
type ValidateOptions struct {
	// MaxListed is how many rejected records (and repeated episode ids)
	// the report lists, ≥ 0; all are counted.
	MaxListed    int
	FeatureWidth int // as ReaderOptions.FeatureWidth
	MaxLineBytes int // as ReaderOptions.MaxLineBytes
}

// Validation is what ValidateFiles found: the counts of every file and in
// total, the first rejected records and repeated episode ids.
type Validation struct {
	Counts     Counts        `json:"counts"`
	Files      []FileStats   `json:"files"`
	Rejected   []Rejected    `json:"rejected"`
	NotListed  int64         `json:"rejected_not_listed"` // rejected records beyond Rejected
	Duplicates []DuplicateID `json:"duplicate_ids"`

	errs     []*RecordError // Rejected as read, for the text
	patterns int            // how many patterns were given
}

// Rejected is one rejected record: where, which field, why.
type Rejected struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
	Torn   bool   `json:"torn,omitempty"`
}

// ValidateFiles reads every record of the files patterns name (as Open)
// and checks each against the episode and decision rules, going on past
// rejected records and past files that cannot be read (named in Files
// with their error).
func ValidateFiles(patterns []string, opts ValidateOptions) (*Validation, error) {
	v := &Validation{patterns: len(patterns)}
	ropts := ReaderOptions{Skip: true, FeatureWidth: opts.FeatureWidth, MaxLineBytes: opts.MaxLineBytes, SkipUnreadable: true,
		KeepErrors: opts.MaxListed, OnReject: func(e *RecordError) {
			if len(v.errs) < opts.MaxListed {
				v.errs = append(v.errs, e)
				v.Rejected = append(v.Rejected, Rejected{e.File, e.Line, e.Field, e.Reason, e.Torn})
			}
		}}
	if opts.MaxListed == 0 {
		ropts.KeepErrors = -1
	}
	r, err := Open(patterns, ropts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
	}
	v.Counts, v.Files = r.Counts(), r.Files()
	v.NotListed = v.Counts.Rejected - int64(len(v.errs))
	v.Duplicates = append([]DuplicateID{}, r.Duplicates()...)
	if v.Rejected == nil {
		v.Rejected = []Rejected{}
	}
	return v, nil
}

// WriteText writes the rejected records as file:line: field: reason, the
// repeated episode ids as warnings, each file's counts (when there are
// several, or it is unreadable) and the total.
func (v *Validation) WriteText(w io.Writer) error {
	c := v.Counts
	for _, e := range v.errs {
		fmt.Fprintln(w, e.Error())
	}
	if v.NotListed > 0 {
		fmt.Fprintf(w, "... and %d more rejected records\n", v.NotListed)
	}
	for _, d := range v.Duplicates {
		fmt.Fprintf(w, "warning: %s: episode id %q repeats an earlier episode's\n", d.Pos, d.ID)
	}
	if n := c.DuplicateIDs - int64(len(v.Duplicates)); n > 0 {
		fmt.Fprintf(w, "... and %d more repeated episode ids\n", n)
	}
	for _, f := range v.Files {
		if f.Error != "" {
			fmt.Fprintf(w, "%s: unreadable: %s (read %d records before it: accepted %d, rejected %d)\n",
				f.Path, f.Error, f.Read, f.Accepted, f.Rejected)
			continue
		}
		if v.patterns > 1 || c.Files > 1 {
			fmt.Fprintf(w, "%s: read %d records, accepted %d, rejected %d\n", f.Path, f.Read, f.Accepted, f.Rejected)
		}
	}
	fmt.Fprintf(w, "%d files: read %d records, accepted %d (%d episodes, %d decisions), rejected %d",
		c.Files, c.Read, c.Accepted, c.Episodes, c.Decisions, c.Rejected)
	if c.DuplicateIDs > 0 {
		fmt.Fprintf(w, "; %d repeated episode ids", c.DuplicateIDs)
	}
	if c.Unreadable > 0 {
		fmt.Fprintf(w, "; %d files unreadable", c.Unreadable)
	}
	_, err := fmt.Fprintln(w)
	return err
}
