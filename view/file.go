package view

import (
	"bytes"
	"io"

	"github.com/mpdf/mpdf/outfile"
)

// WriteFile writes the page of runs to path, replaced whole. The page is
// rendered first, so that one over its budget is refused, with the
// budget's own message, before the file is touched.
func WriteFile(path string, runs []Run, o Options) error {
	var page bytes.Buffer
	if err := Write(&page, runs, o); err != nil {
		return err
	}
	return outfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(page.Bytes())
		return err
	})
}
