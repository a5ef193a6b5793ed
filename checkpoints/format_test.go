package checkpoints

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/mpdf/mpdf/nn"
)

var errKinds = []error{ErrNotCheckpoint, ErrVersion, ErrTruncated, ErrCorrupt, ErrTooLarge, ErrFeatureSchema}

// kindOf names the single error kind err wraps, and fails the test when it
// wraps none or several.
func kindOf(t *testing.T, err error) error {
	t.Helper()
	var found []error
	for _, k := range errKinds {
		if errors.Is(err, k) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		t.Fatalf("error %v wraps %d kinds %v, want exactly one", err, len(found), found)
	}
	return found[0]
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Checkpoint)
	}{
		{"full", func(*Checkpoint) {}},
		{"weights-only", func(c *Checkpoint) { c.Reference, c.Adam, c.RNG = nil, nil, nil }},
		{"no-metadata", func(c *Checkpoint) { c.Header.Metrics, c.Header.Train, c.Header.DataPos = nil, nil, nil }},
		{"relu-deep", func(c *Checkpoint) {
			s := newTrainState(t, []int{26, 16, 16, 16, 3}, nn.ReLU, 9)
			s.run(2)
			*c = *s.checkpoint(t)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sample(t)
			tc.edit(c)
			b := mustMarshal(t, c)
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c, got); d != "" {
				t.Fatalf("round trip changed the checkpoint (-want +got):\n%s", d)
			}
			got2, err := Decode(iotest.OneByteReader(bytes.NewReader(b)))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c, got2); d != "" {
				t.Fatalf("Decode from a stream differs from Unmarshal (-want +got):\n%s", d)
			}
			var buf bytes.Buffer
			if err := Encode(&buf, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), b) {
				t.Fatal("re-encoding a decoded checkpoint changed its bytes")
			}
		})
	}
}

// Two runs with the same seed and data write byte-identical files; a run
// with another seed does not.
func TestDeterministicBytes(t *testing.T) {
	a := mustMarshal(t, sample(t))
	b := mustMarshal(t, sample(t))
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, same data: checkpoints differ")
	}
	s := newTrainState(t, []int{6, 8, 3}, nn.Tanh, 2)
	s.run(3)
	if bytes.Equal(a, mustMarshal(t, s.checkpoint(t))) {
		t.Fatal("different seeds gave the same bytes")
	}
	// Map iteration order must not leak into the header.
	c := sample(t)
	for i := range 20 {
		c.Header.Metrics[string(rune('a'+i))] = float64(i)
	}
	first := mustMarshal(t, c)
	for range 5 {
		if !bytes.Equal(first, mustMarshal(t, c)) {
			t.Fatal("metrics map order leaked into the bytes")
		}
	}
}

func TestTruncatedEverywhere(t *testing.T) {
	b := mustMarshal(t, sample(t))
	for n := range len(b) {
		_, err := Unmarshal(b[:n])
		if k := kindOf(t, err); k != ErrTruncated {
			t.Fatalf("truncated to %d of %d bytes: %v, want ErrTruncated", n, len(b), err)
		}
		_, err = Decode(bytes.NewReader(b[:n]))
		if k := kindOf(t, err); k != ErrTruncated {
			t.Fatalf("stream truncated to %d of %d bytes: %v, want ErrTruncated", n, len(b), err)
		}
	}
}

// Every single-byte change is rejected, with the kind its position implies:
// the magic → ErrNotCheckpoint, the version → ErrVersion, anything after
// the lengths → ErrCorrupt (the checksum).
func TestFlippedBytes(t *testing.T) {
	b := mustMarshal(t, sample(t))
	for i := range b {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(b)
			bad[i] ^= x
			_, err := Unmarshal(bad)
			if err == nil {
				t.Fatalf("byte %d ^ %#x accepted", i, x)
			}
			k := kindOf(t, err)
			switch {
			case i < offVersion && k != ErrNotCheckpoint,
				i >= offVersion && i < offRawLen && k != ErrVersion,
				i >= offFrameLen+8 && k != ErrCorrupt:
				t.Fatalf("byte %d ^ %#x: %v", i, x, err)
			case i >= offRawLen && i < offFrameLen+8 && k != ErrCorrupt && k != ErrTruncated && k != ErrTooLarge:
				t.Fatalf("length byte %d ^ %#x: %v", i, x, err)
			}
		}
	}
}

func TestTrailingBytes(t *testing.T) {
	b := append(mustMarshal(t, sample(t)), 0)
	if _, err := Unmarshal(b); kindOf(t, err) != ErrCorrupt {
		t.Fatalf("trailing byte: %v, want ErrCorrupt", err)
	}
	// A stream reader stops at the end of the checkpoint.
	if _, err := Decode(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
}

// reseal rewrites the prefix field at off and recomputes the checksum, so
// that the test reaches the check it aims at.
func reseal(b []byte, off int, v uint64, width int) []byte {
	b = bytes.Clone(b)
	if width == 4 {
		binary.LittleEndian.PutUint32(b[off:], uint32(v))
	} else {
		binary.LittleEndian.PutUint64(b[off:], v)
	}
	end := len(b) - trailerLen
	binary.LittleEndian.PutUint32(b[end:], crc32.Checksum(b[:end], castagnoli))
	return b
}

func TestErrorKinds(t *testing.T) {
	good := mustMarshal(t, sample(t))
	for _, tc := range []struct {
		name string
		b    []byte
		opts []Option
		want error
		msg  string
	}{
		{"empty", nil, nil, ErrTruncated, "prefix"},
		{"magic", append([]byte("PK\x03\x04"), good[4:]...), nil, ErrNotCheckpoint, "magic"},
		{"short-wrong-magic", []byte("MPDX"), nil, ErrNotCheckpoint, "magic"},
		{"version-999", reseal(good, offVersion, 999, 4), nil, ErrVersion, "version 999"},
		{"version-0", reseal(good, offVersion, 0, 4), nil, ErrVersion, "version 0"},
		{"too-large", reseal(good, offRawLen, 1<<40, 8), nil, ErrTooLarge, "limit"},
		{"over-limit", good, []Option{WithMaxBytes(16)}, ErrTooLarge, "WithMaxBytes"},
		{"wrong-raw-length", reseal(good, offRawLen, binary.LittleEndian.Uint64(good[offRawLen:])+1, 8), nil, ErrCorrupt, "the body holds"},
		{"feature", good, []Option{WithFeatureVersion("mpdf-features/v0")}, ErrFeatureSchema, `"mpdf-features/v0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Unmarshal(tc.b, tc.opts...)
			if k := kindOf(t, err); k != tc.want {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("%q does not say %q", err, tc.msg)
			}
		})
	}
	if _, err := Unmarshal(good, WithFeatureVersion("")); err != nil {
		t.Fatalf("WithFeatureVersion(\"\") should accept any version: %v", err)
	}
	if _, err := Unmarshal(good, WithMaxBytes(0)); err == nil {
		t.Fatal("WithMaxBytes(0) accepted")
	}
}

// A prefix announcing a huge body is rejected before anything of that size
// is allocated, whether the claim exceeds the limit (1 TB) or only the
// frame's possible expansion (512 MiB from a tiny frame).
func TestHugeClaimsAllocateNothing(t *testing.T) {
	good := mustMarshal(t, sample(t))
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"body-1TB", reseal(good, offRawLen, 1<<40, 8), ErrTooLarge},
		{"body-512MiB-tiny-frame", reseal(good, offRawLen, 512<<20, 8), ErrCorrupt},
		{"frame-1TB", reseal(good, offFrameLen, 1<<40, 8), ErrCorrupt},
		{"frame-512MiB", reseal(reseal(good, offRawLen, 1<<29, 8), offFrameLen, 1<<29, 8), ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 10 {
				_, err := Unmarshal(tc.b)
				if k := kindOf(t, err); k != tc.want {
					t.Fatalf("%v, want %v", err, tc.want)
				}
				_, err = Decode(bytes.NewReader(tc.b))
				if k := kindOf(t, err); k != tc.want {
					t.Fatalf("stream: %v, want %v", err, tc.want)
				}
			}
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
				t.Fatalf("rejecting allocated %d bytes", d)
			}
		})
	}
}

func TestEncodeRejectsInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Checkpoint)
		msg  string
	}{
		{"nil-policy", func(c *Checkpoint) { c.Policy = nil }, "policy is nil"},
		{"no-feature-version", func(c *Checkpoint) { c.Header.FeatureVersion = "" }, "feature_version"},
		{"negative-step", func(c *Checkpoint) { c.Header.Step = -1 }, "step"},
		{"nan-metric", func(c *Checkpoint) { c.Header.Metrics["kl"] = nan() }, `metric "kl"`},
		{"bad-train-json", func(c *Checkpoint) { c.Header.Train = []byte("{") }, "train"},
		{"nan-param", func(c *Checkpoint) { c.Policy.Params[7] = float32(nan()) }, "policy: [7]"},
		{"short-params", func(c *Checkpoint) { c.Policy.Params = c.Policy.Params[1:] }, "params"},
		{"bad-activation", func(c *Checkpoint) { c.Policy.Act = 7 }, "activation"},
		{"reference-shape", func(c *Checkpoint) { c.Reference.Sizes = []int{6, 9, 3} }, "reference"},
		{"adam-length", func(c *Checkpoint) { c.Adam.V = c.Adam.V[:3] }, "adam"},
		{"adam-negative-v", func(c *Checkpoint) { c.Adam.V[0] = -1 }, "adam: v"},
		{"adam-config", func(c *Checkpoint) { c.Adam.Config.Beta1 = 1 }, "beta1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sample(t)
			tc.edit(c)
			_, err := Marshal(c)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Marshal: %v, want an error about %q", err, tc.msg)
			}
		})
	}
}

// Sound checksums around unsound content: the body checks still catch it.
func TestCorruptBodies(t *testing.T) {
	c := sample(t)
	body, err := encodeBody(c)
	if err != nil {
		t.Fatal(err)
	}
	hlen := int(binary.LittleEndian.Uint32(body))
	n := len(c.Policy.Params)
	nanAt := func(i int) []byte { // element i of the policy, in byte planes
		b := bytes.Clone(body)
		for k, x := range []byte{0x00, 0x00, 0xc0, 0x7f} {
			b[4+hlen+k*n+i] = x
		}
		return b
	}
	replace := func(old, new string) []byte {
		js := strings.Replace(string(body[4:4+hlen]), old, new, 1)
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(js)))
		return append(append(b, js...), body[4+hlen:]...)
	}
	for _, tc := range []struct {
		name string
		body []byte
		msg  string
	}{
		{"nan-weight", nanAt(3), "policy at body offset +0: [3] is NaN"},
		{"header-length", append([]byte{0xff, 0xff, 0, 0}, body[4:]...), "header of"},
		{"json", replace(`"step"`, `"step`), "header JSON"},
		{"key-twice", replace(`"sizes":[6,8,3]`, `"sizes":[6,8,3],"sizes":[6,8,3]`), "given twice"},
		{"key-case", replace(`"rng_bytes"`, `"RNG_bytes"`), "case-sensitive"},
		{"sizes", replace(`"sizes":[6,8,3]`, `"sizes":[6,9,3]`), "needs"},
		{"huge-sizes", replace(`"sizes":[6,8,3]`, `"sizes":[1073741824,1073741824,3]`), "needs more than"},
		{"zero-size", replace(`"sizes":[6,8,3]`, `"sizes":[6,0,3]`), "size 1 is 0"},
		{"activation", replace(`"tanh"`, `"gelu"`), "activation"},
		{"rng", replace(`"rng_bytes":20`, `"rng_bytes":21`), "needs"},
		{"adam-step", replace(`"adam":{"config":{"lr":0.0003,"beta1":0.9,"beta2":0.999,"eps":1e-8},"step":3}`,
			`"adam":{"config":{"lr":0.0003,"beta1":0.9,"beta2":0.999,"eps":1e-8},"step":-3}`), "adam: step"},
		{"no-feature-version", replace(`"feature_version":"mpdf-features/v1"`, `"feature_version":""`), "feature_version is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.body, body) {
				t.Fatal("the edit did not apply")
			}
			_, err := decodeBody(tc.body, "")
			if k := kindOf(t, err); k != ErrCorrupt || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("%v, want ErrCorrupt about %q", err, tc.msg)
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }
