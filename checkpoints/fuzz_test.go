package checkpoints

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mpdf/mpdf/nn"
)

// FuzzLoad feeds arbitrary bytes to the reader behind Load. It must never
// panic, must bound what it allocates (WithMaxBytes), and whatever it accepts
// must write back to the same bytes and read back to the same checkpoint.
func FuzzLoad(f *testing.F) {
	good := mustMarshal(f, sample(f))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(reseal(good, offVersion, 2, 4))
	f.Add(reseal(good, offRawLen, 1<<40, 8))
	if golden, err := os.ReadFile(goldenCheckpoint); err == nil {
		f.Add(golden)
	}
	f.Add([]byte(Magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Unmarshal(b, WithMaxBytes(1<<20), WithFeatureVersion(""))
		if err != nil {
			return
		}
		again, err := Marshal(c)
		if err != nil {
			t.Fatalf("accepted a checkpoint it cannot write: %v", err)
		}
		if !bytes.Equal(again, b) {
			// Another zstd encoder may have made b; the content must agree.
			c2, err := Unmarshal(again, WithFeatureVersion(""))
			if err != nil {
				t.Fatalf("decode → encode → decode is not stable: %v", err)
			}
			if d := cmp.Diff(c, c2); d != "" {
				t.Fatalf("decode → encode → decode is not stable (-first +second):\n%s", d)
			}
		}
	})
}

// FuzzBody fuzzes the body parser under the checksum, which random bytes
// rarely get past.
func FuzzBody(f *testing.F) {
	for _, c := range []*Checkpoint{sample(f), {Header: Header{FeatureVersion: "v"}, Policy: sampleMLP(f, []int{2, 1}, nn.ReLU)}} {
		b, err := encodeBody(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(binary.LittleEndian.AppendUint32(nil, 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeBody(b, "")
		if err != nil {
			return
		}
		if _, err := encodeBody(c); err != nil {
			t.Fatalf("accepted a body it cannot write: %v", err)
		}
	})
}

// FuzzImportSafetensors: arbitrary bytes never panic the safetensors reader,
// and what it accepts exports to a file it reads back the same.
func FuzzImportSafetensors(f *testing.F) {
	f.Add(exportBytes(f, sampleMLP(f, []int{3, 4, 2}, nn.Tanh), nil))
	f.Add(exportBytes(f, sampleMLP(f, []int{2, 2, 2, 2}, nn.ReLU), map[string]string{"a": "b"}))
	if golden, err := os.ReadFile(goldenSafetensors); err == nil {
		f.Add(golden)
	}
	f.Add(build(map[string]any{"layers.0.weight": entry("F32", []int{1, 1}, 0, 4), "layers.0.bias": entry("F32", []int{1}, 4, 8)}, make([]byte, 8)))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, meta, err := ImportSafetensors(bytes.NewReader(b), WithMaxBytes(1<<20), WithFeatureVersion(""))
		if err != nil {
			return
		}
		delete(meta, MetaActivation) // a file may omit it; the export states it
		delete(meta, MetaFormat)
		var buf bytes.Buffer
		if err := ExportSafetensors(&buf, m, meta); err != nil {
			// Metadata that is not valid UTF-8 cannot be exported.
			if !bytes.Contains([]byte(err.Error()), []byte("UTF-8")) {
				t.Fatalf("accepted a model it cannot export: %v", err)
			}
			return
		}
		m2, _, err := ImportSafetensors(&buf, WithFeatureVersion(""))
		if err != nil {
			t.Fatalf("export → import is not stable: %v", err)
		}
		if d := cmp.Diff(m, m2); d != "" {
			t.Fatalf("export → import is not stable (-first +second):\n%s", d)
		}
	})
}
