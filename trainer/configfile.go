package trainer

import (
	"os"

	"github.com/mpdf/mpdf/data"
)

// ReadConfigFile returns base (the defaults, or the config of a run being
// resumed) overlaid by the JSON object in the file path: its fields win,
// an unknown field is an error, and so is anything after the object (a
// pasted duplicate, a merge left over), which would otherwise be ignored
// without a word, a key given twice or in another case, and invalid text.
// The error names the file and line ("PATH:LINE: field: ...").
func ReadConfigFile(base Config, path string) (Config, error) {
	cfg := base
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	// One strict reader (data.DecodeStrict): {"seed":1,"Seed":2} ran with
	// seed 2, and a million-digit seed came back whole in the error.
	if err := data.DecodeStrict(b, &cfg); err != nil {
		return base, data.InFile(path, err)
	}
	return cfg, nil
}
