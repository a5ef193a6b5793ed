package data_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/data"
)

// ValidateFiles checks every record of rollout files and says which are
// rejected, where and why: what mpdf data validate prints.
func ExampleValidateFiles() {
	dir, err := os.MkdirTemp("", "validate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rollouts.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"episode","task":"t1"}`+"\n"), 0o644); err != nil {
		panic(err)
	}

	v, err := data.ValidateFiles([]string{path}, data.ValidateOptions{MaxListed: 10})
	if err != nil {
		panic(err)
	}
	r := v.Rejected[0]
	fmt.Println("accepted", v.Counts.Accepted, "rejected", v.Counts.Rejected)
	fmt.Printf("line %d: %s: %s\n", r.Line, r.Field, r.Reason)
	// Output:
	// accepted 0 rejected 1
	// line 1: id: missing
}
