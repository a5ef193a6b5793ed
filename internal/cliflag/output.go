package cliflag

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// PrintJSON prints v to w as indented JSON, what --json asks for.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Show prints a command's result v to its output: as indented JSON
// (--json), or as text writes it.
func Show(cmd *cobra.Command, asJSON bool, v any, text func(io.Writer) error) error {
	if asJSON {
		return PrintJSON(cmd.OutOrStdout(), v)
	}
	return text(cmd.OutOrStdout())
}

// LogUnless is w, or nil (no transcript reports) when quiet (--quiet).
func LogUnless(quiet bool, w io.Writer) io.Writer {
	if quiet {
		return nil
	}
	return w
}

// MaxLine adds --max-line-bytes, the longest record line written or read
// (0: data.DefaultMaxLineBytes, the default).
func MaxLine(cmd *cobra.Command, n *int) {
	Bind(cmd.Flags(), Count(n, 0), "max-line-bytes", "", "; writers and readers of one file need the same")
}
