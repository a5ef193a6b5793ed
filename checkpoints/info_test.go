package checkpoints

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// Inspect describes a checkpoint and its export; the text names what each
// holds and JSON round-trips the description.
func TestInspectAndExport(t *testing.T) {
	dir := t.TempDir()
	c := sample(t)
	path := filepath.Join(dir, "c.mpdf")
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	d, err := Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	info, ok := d.(*Info)
	if !ok {
		t.Fatalf("Inspect of a checkpoint gave %T", d)
	}
	if info.Step != c.Header.Step || info.Reference == nil || info.Adam == nil || !info.Usable ||
		info.Policy.String() != "MLP 6 → 8 → 3, tanh, 83 parameters" || info.ConfidenceSource != ConfidenceUnknown {
		t.Errorf("Info %+v", info)
	}
	var text strings.Builder
	if err := d.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"feature version", "(matches this build)", "yes: MLP 6 → 8 → 3", "unknown (not recorded)",
		"  kl", "training config:\n{\n  \"lr\": 0.01,"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	b, _ := json.Marshal(d)
	var back Info
	if err := json.Unmarshal(b, &back); err != nil || back.Step != info.Step || back.Policy.Params != 83 {
		t.Errorf("JSON %s: %v", b, err)
	}

	out := filepath.Join(dir, "r.safetensors")
	ck, net, err := Export(path, out, true)
	if err != nil || len(net.Params) != 83 {
		t.Fatalf("Export: %v", err)
	}
	want := "wrote " + out + ": reference weights of " + path + " at step " + itoa(c.Header.Step) +
		" (MLP 6 → 8 → 3, tanh, 83 parameters, feature version " + metapolicy.FeatureVersion + ")"
	if got := ExportLine(path, out, ck, net, true); got != want {
		t.Errorf("ExportLine: %q, want %q", got, want)
	}
	d, err = Inspect(out)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := d.(*SafetensorsInfo)
	if !ok || st.Metadata[MetaWeights] != "reference" || st.Metadata[MetaStep] != itoa(c.Header.Step) ||
		st.Metadata[MetaFeatureVersion] != metapolicy.FeatureVersion {
		t.Errorf("export inspected as %T %+v", d, d)
	}
	c.Reference = nil
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Export(path, out, true); err == nil || !strings.Contains(err.Error(), "has no reference policy") {
		t.Errorf("exporting a missing reference: %v", err)
	}
}

// An unknown layout is named, with the layouts this build runs.
func TestLayoutNoteUnknown(t *testing.T) {
	if note := layoutNote("mpdf-features/custom-7"); !strings.Contains(note, "cannot run here") ||
		!strings.Contains(note, metapolicy.FeatureVersion) || !strings.Contains(note, metapolicy.FeatureVersionV2) {
		t.Errorf("an unknown layout: %q", note)
	}
}
