package checkpoints

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

func sampleMLP(t testing.TB, sizes []int, act nn.Activation) *nn.MLP[float32] {
	t.Helper()
	m, err := nn.NewMLP[float32](sizes, act)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(5)
	return m
}

func exportBytes(t testing.TB, m *nn.MLP[float32], meta map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ExportSafetensors(&buf, m, meta); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSafetensorsRoundTrip(t *testing.T) {
	// 12 layers: "layers.10" sorts before "layers.2", so the data order
	// differs from the parameter order.
	sizes := []int{metapolicy.FeatureWidth, 7, 6, 5, 4, 4, 4, 4, 4, 4, 4, 4, 3}
	for _, act := range []nn.Activation{nn.Tanh, nn.ReLU} {
		m := sampleMLP(t, sizes, act)
		b := exportBytes(t, m, map[string]string{"run": "test ü \"q\""})
		got, meta, err := ImportSafetensors(iotest.HalfReader(bytes.NewReader(b)))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(m, got); d != "" {
			t.Fatalf("%v: import(export(m)) != m (-want +got):\n%s", act, d)
		}
		want := map[string]string{"activation": act.String(), "feature_version": metapolicy.FeatureVersion,
			"format": "pt", "run": "test ü \"q\""}
		if d := cmp.Diff(want, meta); d != "" {
			t.Fatalf("metadata (-want +got):\n%s", d)
		}
	}
}

// The layout of design §5, checked on the bytes: header length, names,
// shapes [out, in] and [out], sorted data, padding to 8 bytes.
func TestSafetensorsLayout(t *testing.T) {
	m := sampleMLP(t, []int{3, 2, 2}, nn.Tanh)
	b := exportBytes(t, m, nil)
	n := binary.LittleEndian.Uint64(b)
	if n%8 != 0 || 8+n > uint64(len(b)) {
		t.Fatalf("header length %d", n)
	}
	head := string(b[8 : 8+n])
	want := `{"layers.0.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},` +
		`"layers.0.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[8,32]},` +
		`"layers.1.bias":{"dtype":"F32","shape":[2],"data_offsets":[32,40]},` +
		`"layers.1.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[40,56]},` +
		`"__metadata__":{"activation":"tanh","feature_version":"` + metapolicy.FeatureVersion + `","format":"pt"}}`
	if strings.TrimRight(head, " ") != want {
		t.Fatalf("header\n%s\nwant\n%s", head, want)
	}
	data := b[8+n:]
	if len(data) != 56 {
		t.Fatalf("%d data bytes, want 56", len(data))
	}
	f := func(off int) float32 { return mathFloat32(binary.LittleEndian.Uint32(data[off:])) }
	// layers.0.weight is [out=2, in=3] row-major: element [1][2] at 8+4*(1*3+2).
	if f(8+4*5) != m.Weight(0)[1*3+2] || f(0) != m.Bias(0)[0] || f(52) != m.Weight(1)[3] {
		t.Fatal("tensor data is not where the header says")
	}
}

func TestSafetensorsExportErrors(t *testing.T) {
	m := sampleMLP(t, []int{3, 2}, nn.ReLU)
	for _, tc := range []struct {
		meta map[string]string
		msg  string
	}{
		{map[string]string{"activation": "tanh"}, "contradicts"},
		{map[string]string{"format": "np"}, "contradicts"},
		{map[string]string{"x": "\xff"}, "UTF-8"},
	} {
		if err := ExportSafetensors(&bytes.Buffer{}, m, tc.meta); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("meta %v: %v, want %q", tc.meta, err, tc.msg)
		}
	}
	bad := m.Clone()
	bad.Params[0] = float32(nan())
	if err := ExportSafetensors(&bytes.Buffer{}, bad, nil); err == nil {
		t.Error("exported a NaN")
	}
}

// build writes a safetensors file from a hand-made header and data.
func build(header map[string]any, data []byte) []byte {
	h, _ := json.Marshal(header)
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(b, h...), data...)
}

func entry(dtype string, shape []int, begin, end int64) map[string]any {
	return map[string]any{"dtype": dtype, "shape": shape, "data_offsets": []int64{begin, end}}
}

func TestSafetensorsImportErrors(t *testing.T) {
	fv := map[string]string{"feature_version": metapolicy.FeatureVersion}
	good := func() map[string]any {
		return map[string]any{
			"layers.0.weight": entry("F32", []int{2, 3}, 0, 24),
			"layers.0.bias":   entry("F32", []int{2}, 24, 32),
			"__metadata__":    fv,
		}
	}
	data := make([]byte, 32)
	with := func(edit func(map[string]any)) map[string]any { h := good(); edit(h); return h }
	valid := build(good(), data)
	if m, meta, err := ImportSafetensors(bytes.NewReader(valid)); err != nil || m.Act != nn.Tanh || len(meta) != 1 {
		t.Fatalf("hand-made file: %v (activation defaults to tanh)", err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		opts []Option
		want error
		msg  string
	}{
		{"empty", nil, nil, ErrTruncated, "8-byte"},
		{"short-header", valid[:20], nil, ErrTruncated, "early"},
		{"short-data", valid[:len(valid)-1], nil, ErrTruncated, "early"},
		{"huge-header", binary.LittleEndian.AppendUint64(nil, 1<<40), nil, ErrTooLarge, "header of"},
		{"tiny-header", append(binary.LittleEndian.AppendUint64(nil, 1), '{'), nil, ErrCorrupt, "header of 1 bytes"},
		{"not-object", append(binary.LittleEndian.AppendUint64(nil, 8), "[1,2]   "...), nil, ErrCorrupt, "want '{'"},
		{"bad-json", append(binary.LittleEndian.AppendUint64(nil, 8), "{1,2}   "...), nil, ErrCorrupt, "header JSON"},
		{"named-twice", stHeader(`{"layers.0.bias":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},"layers.0.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`), nil, ErrCorrupt, "given twice"},
		{"lone-surrogate", stHeader(`{"layers.0.bias\udc00":{"dtype":"F32","shape":[2],"data_offsets":[24,32]}}`), nil, ErrCorrupt, "surrogate"},
		{"dtype", build(with(func(h map[string]any) { h["layers.0.bias"] = entry("F16", []int{2}, 24, 28) }), data[:28]), nil, ErrCorrupt, `dtype "F16"`},
		{"name", build(with(func(h map[string]any) { h["0.weight"] = entry("F32", []int{1}, 32, 36) }), make([]byte, 36)), nil, ErrCorrupt, `"0.weight"`},
		{"leading-zero", build(with(func(h map[string]any) { h["layers.01.bias"] = entry("F32", []int{1}, 32, 36) }), make([]byte, 36)), nil, ErrCorrupt, "layers.01"},
		{"missing-bias", build(with(func(h map[string]any) { delete(h, "layers.0.bias") }), data[:24]), nil, ErrCorrupt, "missing"},
		{"missing-layer", build(with(func(h map[string]any) {
			h["layers.2.weight"] = entry("F32", []int{1, 2}, 32, 40)
			h["layers.2.bias"] = entry("F32", []int{1}, 40, 44)
		}), make([]byte, 44)), nil, ErrCorrupt, "layers.1.weight"},
		{"chain", build(with(func(h map[string]any) {
			h["layers.1.weight"] = entry("F32", []int{1, 3}, 32, 44)
			h["layers.1.bias"] = entry("F32", []int{1}, 44, 48)
		}), make([]byte, 48)), nil, ErrCorrupt, "do not match"},
		{"bias-shape", build(with(func(h map[string]any) { h["layers.0.bias"] = entry("F32", []int{3}, 24, 36) }), make([]byte, 36)), nil, ErrCorrupt, "want [2]"},
		{"rank", build(with(func(h map[string]any) { h["layers.0.bias"] = entry("F32", []int{1, 2}, 24, 32) }), data), nil, ErrCorrupt, "dimensions"},
		{"offsets-size", build(with(func(h map[string]any) { h["layers.0.bias"] = entry("F32", []int{2}, 24, 28) }), data[:28]), nil, ErrCorrupt, "do not hold"},
		{"overlap", build(with(func(h map[string]any) { h["layers.0.bias"] = entry("F32", []int{2}, 16, 24) }), data[:24]), nil, ErrCorrupt, "overlaps"},
		{"hole", build(with(func(h map[string]any) { h["layers.0.bias"] = entry("F32", []int{2}, 28, 36) }), make([]byte, 36)), nil, ErrCorrupt, "hole"},
		{"huge-shape", build(with(func(h map[string]any) {
			h["layers.0.weight"] = entry("F32", []int{1 << 20, 1 << 20}, 0, 1<<42)
			h["layers.0.bias"] = entry("F32", []int{1 << 20}, 1<<42, 1<<42+1<<22)
		}), nil), nil, ErrTooLarge, "tensor data"},
		{"over-limit", valid, []Option{WithMaxBytes(16)}, ErrTooLarge, "header of"},
		{"activation", build(with(func(h map[string]any) {
			h["__metadata__"] = map[string]string{"activation": "gelu", "feature_version": metapolicy.FeatureVersion}
		}), data), nil, ErrCorrupt, "gelu"},
		{"metadata-type", build(with(func(h map[string]any) { h["__metadata__"] = map[string]int{"x": 1} }), data), nil, ErrCorrupt, "__metadata__"},
		{"nan", build(good(), append(make([]byte, 28), 0, 0, 0xc0, 0x7f)), nil, ErrCorrupt, "NaN"},
		{"no-feature-version", build(with(func(h map[string]any) { delete(h, "__metadata__") }), data), nil, ErrFeatureSchema, "absent"},
		{"feature-version", valid, []Option{WithFeatureVersion("v0")}, ErrFeatureSchema, `want "v0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ImportSafetensors(bytes.NewReader(tc.b), tc.opts...)
			if k := kindOf(t, err); k != tc.want || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("%v, want %v about %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestSafetensorsFiles(t *testing.T) {
	dir := t.TempDir()
	m := sampleMLP(t, []int{4, 3}, nn.ReLU)
	path := dir + "/w.safetensors"
	if err := SaveSafetensors(path, m, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := LoadSafetensors(path)
	if err != nil {
		t.Fatalf("LoadSafetensors: %v", err)
	}
	if d := cmp.Diff(m, got); d != "" {
		t.Fatalf("LoadSafetensors (-want +got):\n%s", d)
	}
	assertNoTemp(t, dir)
}

// stHeader is a safetensors file of the header json and no data.
func stHeader(json string) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(len(json))), json...)
}
