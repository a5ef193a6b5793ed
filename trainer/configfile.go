package trainer

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mpdf/mpdf/data"
)

// ReadConfigFile returns base (the defaults, or the config of a run being
// resumed) overlaid by the JSON object in the file path: its fields win,
// an unknown field is an error, and so is anything after the object (a
// pasted duplicate, a merge left over), which would otherwise be ignored
// without a word.
func ReadConfigFile(base Config, path string) (Config, error) {
	cfg := base
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data.TrimBOM(b)))) // a hand-edited file may start with one
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	end := dec.InputOffset()
	var more json.RawMessage
	if err := dec.Decode(&more); err != io.EOF {
		return cfg, fmt.Errorf("%s: more after the config object ends at offset %d (want one JSON object)", path, end)
	}
	return cfg, nil
}
