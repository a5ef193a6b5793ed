package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrOutputIsInput is wrapped by NotAnInput's error.
var ErrOutputIsInput = errors.New("the output is one of the inputs")

// NotAnInput refuses an output path that is one of a command's inputs: the
// same file by identity (device and inode, os.SameFile), so a hard link, a
// symbolic link or another spelling of the path is caught too, not only the
// same name. Writing the output would replace the input it is read from
// (import X --out X, export best.mpdf --safetensors best.mpdf). A missing
// output, or a missing input, is compared by absolute, cleaned path. Every
// command with inputs and outputs calls it before it touches the output.
func NotAnInput(out string, inputs ...string) error {
	fo, errO := os.Stat(out)
	for _, in := range inputs {
		if in == "" {
			continue
		}
		fi, errI := os.Stat(in)
		var same bool
		switch {
		case errO == nil && errI == nil:
			same = os.SameFile(fo, fi)
		case errors.Is(errO, fs.ErrNotExist) || errors.Is(errI, fs.ErrNotExist):
			a, _ := filepath.Abs(out)
			b, _ := filepath.Abs(in)
			same = a == b
		}
		if same {
			if in == out {
				return fmt.Errorf("outfile: %s: %w: refusing to write over it (give another output)", out, ErrOutputIsInput)
			}
			return fmt.Errorf("outfile: %s is the input %s (the same file): %w: refusing to write over it (give another output)", out, in, ErrOutputIsInput)
		}
	}
	return nil
}
