package checkpoints

// ExportSafetensors writes an nn.MLP[float32] as a safetensors file
// (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON padded with spaces to a multiple of 8, then
// the tensor data. The tensors are "layers.{i}.weight", float32 ("F32") of
// shape [out, in], and "layers.{i}.bias" of shape [out], layer 0 first: the
// state_dict of a torch.nn.ModuleList of nn.Linear named "layers", which a
// PyTorch user loads with load_state_dict(strict=True). The data of the
// tensors follows in the order of their sorted names (so "layers.10" comes
// before "layers.2"), contiguous. "__metadata__" holds string pairs:
// "activation" ("tanh" or "relu", the hidden nonlinearity; the output layer
// is linear), "feature_version" (metapolicy.FeatureVersion unless the caller
// gives another) and "format": "pt", plus any the caller adds. The header is
// spelled as Python's json.dumps(separators=(",", ":")) spells it, so the
// project's reference writer (torch_reference.py's write_safetensors) and this
// one produce the same bytes for the same tensors and metadata; a test runs
// the reference reader and writer on our files to keep it so.
//
// ImportSafetensors reads such a file from any writer and checks it: the
// header length against 100 MB, the limit and the file size; the dtype
// (F32 only: convert with .float() first); the names (only layers.{i}.weight
// and layers.{i}.bias, every layer from 0 present); the shapes ([out, in] and
// [out], each layer's in equal to the previous out); the data offsets (each
// tensor's span holds its elements, and together they tile the data without
// holes or overlaps); finite values; and last the feature-schema version, as
// Load does (a missing "feature_version" does not match). A file without an
// "activation" entry is read as tanh, the project's default. Errors wrap the
// same kinds as Load's.
//
// The safetensors code is written here rather than taken from a library: the
// format is a length, a JSON header and raw floats, a few hundred lines
// cover it; a hand-written reader can bound what it allocates before trusting
// the header and give errors with offsets; and it adds no dependency.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// Metadata keys of an exported safetensors file.
const (
	MetaActivation     = "activation"      // "tanh" or "relu"; absent on import = tanh
	MetaFeatureVersion = "feature_version" // metapolicy.FeatureVersion of the features
	MetaFormat         = "format"          // "pt", what PyTorch tooling expects
	// An attention network (nn.MLP.Attn > 0) adds attn.{q,k,v}.{weight,bias}
	// beside the layers and these two; a file without MetaArch is an MLP.
	MetaArch    = "arch"     // "attention"; absent (or "mlp") for an MLP
	MetaAttnDim = "attn_dim" // the attention width d, decimal
)

// ArchAttention is MetaArch's value for an attention network.
const ArchAttention = "attention"

// attnNames are the tensor names of the attention front, in nn's order
// (nn.MLP.AttnTensor).
var attnNames = [6]string{"attn.q.weight", "attn.q.bias", "attn.k.weight", "attn.k.bias", "attn.v.weight", "attn.v.bias"}

const metadataKey = "__metadata__"

// ExportSafetensors writes m's weights to w in the safetensors layout of
// design §5 (see the package doc). meta adds metadata; the activation and
// "format": "pt" are set from m, and feature_version defaults to
// metapolicy.FeatureVersion. A meta entry contradicting m is an error. The
// bytes are those the reference writer (torch_reference.py) produces for the
// same tensors and metadata.
func ExportSafetensors(w io.Writer, m *nn.MLP[float32], meta map[string]string) error {
	b, err := marshalSafetensors(m, meta)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("checkpoints: safetensors: write: %w", err)
	}
	return nil
}

// SaveSafetensors writes the export of m to path atomically (see Save).
func SaveSafetensors(path string, m *nn.MLP[float32], meta map[string]string) error {
	b, err := marshalSafetensors(m, meta)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFileAtomic(path, bytesWriter(b))
}

// ImportSafetensors reads an MLP from a safetensors stream written by
// ExportSafetensors, the reference script, or any writer using design §5's
// tensor names, and returns it with the file's metadata. It consumes exactly
// the file's bytes. Errors wrap the same kinds as Load: ErrTruncated,
// ErrCorrupt (malformed header, wrong dtype, shapes that do not chain, holes
// or overlaps in the data, non-finite values), ErrTooLarge, ErrFeatureSchema.
func ImportSafetensors(r io.Reader, opts ...Option) (*nn.MLP[float32], map[string]string, error) {
	nets, meta, err := readSafetensors(r, -1, opts)
	if err == nil {
		var m *nn.MLP[float32]
		if m, err = oneNetwork(nets, meta); err == nil {
			return m, meta, nil
		}
	}
	return nil, nil, fmt.Errorf("checkpoints: safetensors: %w", err)
}

// LoadSafetensors reads the safetensors file at path (see ImportSafetensors);
// its lengths are checked against the file size before any allocation.
func LoadSafetensors(path string, opts ...Option) (*nn.MLP[float32], map[string]string, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoints: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoints: %w", err)
	}
	nets, meta, err := readSafetensors(f, st.Size(), opts)
	if err == nil {
		var m *nn.MLP[float32]
		if m, err = oneNetwork(nets, meta); err == nil {
			return m, meta, nil
		}
	}
	return nil, nil, fmt.Errorf("checkpoints: %s: %w", path, err)
}

func marshalSafetensors(m *nn.MLP[float32], meta map[string]string) ([]byte, error) {
	return marshalGroups([]string{""}, []*nn.MLP[float32]{m}, meta)
}

// marshalGroups writes networks nets, network k's tensors prefixed
// groups[k] + "." ("" for none); all have m = nets[0]'s shape.
func marshalGroups(groups []string, nets []*nn.MLP[float32], meta map[string]string) ([]byte, error) {
	if err := checkGroups(groups, nets); err != nil {
		return nil, err
	}
	md, err := groupMetadata(nets[0], meta)
	if err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(md))
	ts := groupTensors(groups, nets)

	// The header, spelled as Python's json.dumps(separators=(",", ":")) does.
	var h bytes.Buffer
	h.WriteByte('{')
	off := 0
	for _, t := range ts {
		pyQuote(&h, t.name)
		fmt.Fprintf(&h, `:{"dtype":"F32","shape":[`)
		for j, d := range t.shape {
			if j > 0 {
				h.WriteByte(',')
			}
			h.WriteString(strconv.Itoa(d))
		}
		fmt.Fprintf(&h, `],"data_offsets":[%d,%d]},`, off, off+4*len(t.data))
		off += 4 * len(t.data)
	}
	pyQuote(&h, metadataKey)
	h.WriteString(":{")
	for j, k := range keys {
		if j > 0 {
			h.WriteByte(',')
		}
		pyQuote(&h, k)
		h.WriteByte(':')
		pyQuote(&h, md[k])
	}
	h.WriteString("}}")
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}

	out := make([]byte, 0, 8+h.Len()+off)
	out = binary.LittleEndian.AppendUint64(out, uint64(h.Len()))
	out = append(out, h.Bytes()...)
	for _, t := range ts {
		for _, v := range t.data {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	}
	return out, nil
}

// failST is an error of writing a safetensors file.
func failST(format string, args ...any) error {
	return fmt.Errorf("checkpoints: safetensors: "+format, args...)
}

// checkGroups checks each network of nets (named by groups) is whole,
// finite and of nets[0]'s shape.
func checkGroups(groups []string, nets []*nn.MLP[float32]) error {
	for k, m := range nets {
		what := "model"
		if groups[k] != "" {
			what = "network " + groups[k]
		}
		if m == nil {
			return failST("%s is nil", what)
		}
		if err := checkModel(m.Sizes, m.Act); err != nil {
			return failST("%s: %v", what, err)
		}
		if n, err := nn.ParamCount(m.Sizes, m.Attn); err != nil || len(m.Params) != n {
			return failST("%s: %d params, sizes %v (attention width %d) need %d", what, len(m.Params), m.Sizes, m.Attn, n)
		}
		if !slices.Equal(m.Sizes, nets[0].Sizes) || m.Act != nets[0].Act || m.Attn != nets[0].Attn {
			return failST("%s: %v %v, the first network's %v %v", what, m.Sizes, m.Act, nets[0].Sizes, nets[0].Act)
		}
		if err := checkFinite(m.Params, false); err != nil {
			return failST("%s: params%v", what, err)
		}
	}
	return nil
}

// groupMetadata is the file's metadata: meta over the feature version,
// with m's own keys (activation, format, architecture), which meta may
// repeat but not contradict; every key and value valid UTF-8.
func groupMetadata(m *nn.MLP[float32], meta map[string]string) (map[string]string, error) {
	md := map[string]string{MetaFeatureVersion: metapolicy.FeatureVersion}
	for k, v := range meta {
		md[k] = v
	}
	own := map[string]string{MetaActivation: m.Act.String(), MetaFormat: "pt"}
	if m.Attn > 0 {
		own[MetaArch], own[MetaAttnDim] = ArchAttention, strconv.Itoa(m.Attn)
	} else if v, ok := md[MetaArch]; ok && v != "mlp" {
		return nil, failST("metadata %s=%q contradicts the model's %q", MetaArch, v, "mlp")
	}
	for k, want := range own {
		if v, ok := md[k]; ok && v != want {
			return nil, failST("metadata %s=%q contradicts the model's %q", k, v, want)
		}
		md[k] = want
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		if !utf8.ValidString(k) || !utf8.ValidString(md[k]) {
			return nil, failST("metadata %q: not valid UTF-8", k)
		}
	}
	return md, nil
}

// outTensor is a tensor to write: its name, shape and values.
type outTensor struct {
	name  string
	shape []int
	data  []float32
}

// groupTensors lists the tensors of nets, network k's prefixed groups[k]
// + "." ("" for none), sorted by name.
func groupTensors(groups []string, nets []*nn.MLP[float32]) []outTensor {
	var ts []outTensor
	for k, m := range nets {
		prefix := ""
		if groups[k] != "" {
			prefix = groups[k] + "."
		}
		for i, name := range attnNames[:min(m.Attn, 1)*len(attnNames)] {
			ts = append(ts, outTensor{prefix + name, nn.AttnTensorShape(m.Attn, i), m.AttnTensor(i)})
		}
		for i := range m.Layers() {
			ts = append(ts,
				outTensor{fmt.Sprintf("%slayers.%d.weight", prefix, i), []int{m.Sizes[i+1], m.Sizes[i]}, m.Weight(i)},
				outTensor{fmt.Sprintf("%slayers.%d.bias", prefix, i), []int{m.Sizes[i+1]}, m.Bias(i)})
		}
	}
	slices.SortFunc(ts, func(a, b outTensor) int { return strings.Compare(a.name, b.name) })
	return ts
}

// pyQuote writes s as a JSON string the way Python's json module does with
// ensure_ascii: printable ASCII as is, the usual short escapes, everything
// else as lower-case \uXXXX (surrogate pairs above the BMP).
func pyQuote(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= ' ' && r <= '~':
			b.WriteRune(r)
		case r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		}
	}
	b.WriteByte('"')
}

type stEntry struct {
	Dtype       string   `json:"dtype"`
	Shape       []uint64 `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

type stTensor struct {
	name       string
	group      string // "" for layers.*, "fallback" or "nets.K" in a file of several networks
	layer      int
	weight     bool
	part       int // 0 for a layer's tensor, i+1 for the attention front's tensor i
	shape      []uint64
	begin, end uint64
}

// readSafetensors reads a safetensors file from r; size is its length when
// known, -1 for a stream.
func readSafetensors(r io.Reader, size int64, opts []Option) (map[string]*nn.MLP[float32], map[string]string, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, nil, err
	}
	hlen, raw, meta, err := readSTHeader(r, size, o.maxBytes)
	if err != nil {
		return nil, nil, err
	}
	ts, sizes, attn, total, err := checkTensors(raw, uint64(o.maxBytes))
	if err != nil {
		return nil, nil, err
	}
	if size >= 0 {
		want := 8 + int64(hlen) + int64(total)
		if size < want {
			return nil, nil, errf(ErrTruncated, "%d bytes, the header announces %d", size, want)
		}
		if size > want {
			return nil, nil, errf(ErrCorrupt, "%d bytes after the tensor data, which ends at offset %d", size-want, want)
		}
	}
	data, err := readN(r, int64(total), size >= 0)
	if err != nil {
		return nil, nil, err
	}

	act := nn.Tanh
	if a, ok := meta[MetaActivation]; ok {
		if act, err = nn.ParseActivation(a); err != nil {
			return nil, nil, errf(ErrCorrupt, "header: %s: %v", metadataKey, err)
		}
	}
	if err := checkArch(meta, attn); err != nil {
		return nil, nil, err
	}
	nets := map[string]*nn.MLP[float32]{}
	for _, t := range ts {
		if nets[t.group] == nil {
			m, err := nn.NewMLP[float32](sizes, act)
			if attn > 0 && err == nil {
				m, err = nn.NewAttention[float32](attn, sizes, act)
			}
			if err != nil {
				return nil, nil, errf(ErrCorrupt, "header: %v", err)
			}
			nets[t.group] = m
		}
	}
	base := 8 + hlen
	for _, t := range ts {
		m := nets[t.group]
		dst := m.Bias(t.layer)
		switch {
		case t.part > 0:
			dst = m.AttnTensor(t.part - 1)
		case t.weight:
			dst = m.Weight(t.layer)
		}
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[t.begin+4*uint64(i):]))
		}
		if err := checkFinite(dst, false); err != nil {
			return nil, nil, errf(ErrCorrupt, "offset %d: %s%v", base+t.begin, t.name, err)
		}
	}
	if o.featureVersion != "" {
		if v, ok := meta[MetaFeatureVersion]; !ok || v != o.featureVersion {
			if !ok {
				v = "(absent)"
			}
			return nil, nil, errf(ErrFeatureSchema, "%s.%s %q, want %q", metadataKey, MetaFeatureVersion, v, o.featureVersion)
		}
	}
	return nets, meta, nil
}

// readSTHeader reads a safetensors file's header from r (size: the file's
// length, -1 for a stream; maxBytes: the caller's limit): its length, its
// tensor entries, and its metadata (taken out of the entries).
func readSTHeader(r io.Reader, size, maxBytes int64) (hlen uint64, raw map[string]json.RawMessage, meta map[string]string, err error) {
	var lenBuf [8]byte
	if n, err := io.ReadFull(r, lenBuf[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return 0, nil, nil, errf(ErrTruncated, "%d bytes, shorter than the 8-byte header length", n)
		}
		return 0, nil, nil, fmt.Errorf("read: %w", err)
	}
	hlen = binary.LittleEndian.Uint64(lenBuf[:])
	switch {
	case hlen > maxSafetensorsHeader || hlen > uint64(maxBytes):
		return 0, nil, nil, errf(ErrTooLarge, "offset 0: header of %d bytes, limit %d", hlen, min(maxSafetensorsHeader, maxBytes))
	case hlen < 2:
		return 0, nil, nil, errf(ErrCorrupt, "offset 0: header of %d bytes", hlen)
	case size >= 0 && 8+int64(hlen) > size:
		return 0, nil, nil, errf(ErrTruncated, "%d bytes, the header alone announces %d", size, 8+hlen)
	}
	head, err := readN(r, int64(hlen), size >= 0)
	if err != nil {
		return 0, nil, nil, err
	}
	if head[0] != '{' {
		return 0, nil, nil, errf(ErrCorrupt, "offset 8: header starts with %q, want '{'", head[0])
	}
	// Strict first (jsonscan): a tensor named twice, or invalid UTF-8 or
	// a lone surrogate in a name, is refused rather than left to
	// encoding/json, which keeps the last value and replaces bad bytes.
	if err := jsonscan.CheckStrict(head, &raw); err != nil {
		return 0, nil, nil, errf(ErrCorrupt, "offset 8: header JSON: %v", err)
	}
	if err := json.Unmarshal(head, &raw); err != nil {
		return 0, nil, nil, errf(ErrCorrupt, "offset 8: header JSON: %v", err)
	}
	if mr, ok := raw[metadataKey]; ok {
		if err := json.Unmarshal(mr, &meta); err != nil {
			return 0, nil, nil, errf(ErrCorrupt, "header: %s: %v", metadataKey, err)
		}
		delete(raw, metadataKey)
	}
	return hlen, raw, meta, nil
}

// checkArch checks the metadata's MetaArch and MetaAttnDim against the
// tensors' attention width attn (0: none): a front needs "arch":
// "attention" and its width; a file without one may say "mlp" or nothing.
func checkArch(meta map[string]string, attn int) error {
	arch, ok := meta[MetaArch]
	switch {
	case attn > 0 && arch != ArchAttention:
		if !ok {
			arch = "(absent)"
		}
		return errf(ErrCorrupt, "header: attn.* tensors, but %s.%s is %q, want %q", metadataKey, MetaArch, arch, ArchAttention)
	case attn > 0 && meta[MetaAttnDim] != strconv.Itoa(attn):
		return errf(ErrCorrupt, "header: %s.%s %q, the attn.* tensors have width %d", metadataKey, MetaAttnDim, meta[MetaAttnDim], attn)
	case attn == 0 && ok && arch != "mlp":
		return errf(ErrCorrupt, "header: %s.%s %q without attn.* tensors", metadataKey, MetaArch, arch)
	}
	return nil
}

// checkTensors validates the tensor entries of a header: names, dtypes,
// shapes that chain into an MLP, and data offsets that tile [0, total)
// without holes or overlaps. It returns the tensors by offset, the MLP's
// sizes and the data length.
func checkTensors(raw map[string]json.RawMessage, maxBytes uint64) ([]stTensor, []int, int, uint64, error) {
	var ts []stTensor
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		t := stTensor{name: name}
		var ok bool
		var rest string
		if t.group, rest, ok = cutGroup(name); ok {
			if i := slices.Index(attnNames[:], rest); i >= 0 {
				t.part, t.weight = i+1, i%2 == 0
			} else {
				t.layer, t.weight, ok = parseTensorName(rest)
			}
		}
		if !ok {
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: want layers.{i}.weight or layers.{i}.bias, or attn.{q,k,v}.{weight,bias} (prefixed nets.{k}. or fallback. in a file of several networks)", name)
		}
		var e stEntry
		if err := json.Unmarshal(raw[name], &e); err != nil {
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: %v", name, err)
		}
		if e.Dtype != "F32" {
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: dtype %q, want F32 (convert with .float())", name, e.Dtype)
		}
		if want := map[bool]int{true: 2, false: 1}[t.weight]; len(e.Shape) != want {
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: shape %v, want %d dimensions", name, e.Shape, want)
		}
		numel := uint64(1)
		for _, d := range e.Shape {
			if d == 0 || d > maxLayerWidth {
				return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: shape %v, want sizes in [1, %d]", name, e.Shape, maxLayerWidth)
			}
			numel *= d // ≤ 2^60: no overflow
		}
		if len(e.DataOffsets) != 2 || e.DataOffsets[0] > e.DataOffsets[1] || e.DataOffsets[1]-e.DataOffsets[0] != 4*numel {
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: data_offsets %v do not hold %d float32", name, e.DataOffsets, numel)
		}
		t.shape, t.begin, t.end = e.Shape, e.DataOffsets[0], e.DataOffsets[1]
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil, nil, 0, 0, errf(ErrCorrupt, "header: no tensors")
	}
	// Every network of the file has the same sizes (one shape, several
	// weights); each is checked on its own.
	var sizes []int
	attn := -1
	groups := map[string][]stTensor{}
	for _, t := range ts {
		groups[t.group] = append(groups[t.group], t)
	}
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		gs, d, err := groupSizes(g, groups[g])
		if err != nil {
			return nil, nil, 0, 0, err
		}
		if sizes != nil && (!slices.Equal(gs, sizes) || d != attn) {
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: network %s has sizes %v (attention width %d), the others %v (%d)", g, gs, d, sizes, attn)
		}
		sizes, attn = gs, d
	}
	slices.SortFunc(ts, func(a, b stTensor) int {
		if a.begin != b.begin {
			return cmpU64(a.begin, b.begin)
		}
		return cmpU64(a.end, b.end)
	})
	end := uint64(0)
	for _, t := range ts {
		if t.begin != end {
			what := "overlaps the previous tensor"
			if t.begin > end {
				what = fmt.Sprintf("leaves a hole [%d,%d)", end, t.begin)
			}
			return nil, nil, 0, 0, errf(ErrCorrupt, "header: tensor %q: data_offsets [%d,%d] %s", t.name, t.begin, t.end, what)
		}
		end = t.end
		if end > maxBytes {
			return nil, nil, 0, 0, errf(ErrTooLarge, "header: tensor data of more than %d bytes, limit %d (WithMaxBytes)", end, maxBytes)
		}
	}
	return ts, sizes, attn, end, nil
}

// groupSizes checks that the tensors of one network (group g) chain into
// an MLP, after an attention front when it has one, and returns its sizes
// and the front's width (0 for none).
func groupSizes(g string, ts []stTensor) ([]int, int, error) {
	prefix := ""
	if g != "" {
		prefix = g + "."
	}
	layers := map[int]*[2]*stTensor{} // [weight, bias]
	var front [6]*stTensor
	nfront := 0
	for i := range ts {
		if ts[i].part > 0 {
			front[ts[i].part-1] = &ts[i]
			nfront++
			continue
		}
		l := layers[ts[i].layer]
		if l == nil {
			l = new([2]*stTensor)
			layers[ts[i].layer] = l
		}
		if ts[i].weight {
			l[0] = &ts[i]
		} else {
			l[1] = &ts[i]
		}
	}
	sizes := make([]int, 0, len(layers)+1)
	for i := range len(layers) {
		l := layers[i]
		if l == nil || l[0] == nil || l[1] == nil {
			return nil, 0, errf(ErrCorrupt, "header: %slayers.%d.weight or %slayers.%d.bias is missing (%d layers)", prefix, i, prefix, i, len(layers))
		}
		out, in := l[0].shape[0], l[0].shape[1]
		if l[1].shape[0] != out {
			return nil, 0, errf(ErrCorrupt, "header: %slayers.%d.bias has shape %v, want [%d]", prefix, i, l[1].shape, out)
		}
		if i == 0 {
			sizes = append(sizes, int(in))
		} else if uint64(sizes[i]) != in {
			return nil, 0, errf(ErrCorrupt, "header: %slayers.%d.weight has shape %v: its %d inputs do not match the %d outputs of layer %d",
				prefix, i, l[0].shape, in, sizes[i], i-1)
		}
		sizes = append(sizes, int(out))
	}
	if nfront == 0 {
		return sizes, 0, nil
	}
	d := 0
	for i, t := range front {
		if t == nil {
			return nil, 0, errf(ErrCorrupt, "header: %s%s is missing (an attention network has all of %v)", prefix, attnNames[i], attnNames)
		}
		if i == 0 {
			d = int(t.shape[0])
		}
		if want := nn.AttnTensorShape(d, i); !slices.Equal(u64s(t.shape), want) {
			return nil, 0, errf(ErrCorrupt, "header: %s%s has shape %v, want %v", prefix, attnNames[i], t.shape, want)
		}
	}
	if len(sizes) == 0 || sizes[0] != nn.AttnSelf+d {
		return nil, 0, errf(ErrCorrupt, "header: %slayers.0.weight reads %v inputs, an attention front of width %d gives %d", prefix, sizes[:min(len(sizes), 1)], d, nn.AttnSelf+d)
	}
	return sizes, d, nil
}

func u64s(s []uint64) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// cutGroup splits a tensor name into its network's group and the rest:
// "layers.…" is the one network of a plain file (group ""), "nets.{k}.…"
// (k canonical) network k and "fallback.…" the fallback of a file of
// several networks (design §5).
func cutGroup(name string) (group, rest string, ok bool) {
	if strings.HasPrefix(name, "layers.") || strings.HasPrefix(name, "attn.") {
		return "", name, true
	}
	if rest, ok := strings.CutPrefix(name, "fallback."); ok {
		return "fallback", rest, true
	}
	rest, ok = strings.CutPrefix(name, "nets.")
	if !ok {
		return "", "", false
	}
	digits, rest, ok := strings.Cut(rest, ".")
	k, err := strconv.Atoi(digits)
	if !ok || err != nil || k < 0 || strconv.Itoa(k) != digits {
		return "", "", false
	}
	return "nets." + digits, rest, true
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseTensorName parses "layers.{i}.weight" or "layers.{i}.bias" with i
// spelled canonically (no sign, no leading zero), as PyTorch names them.
func parseTensorName(name string) (layer int, weight, ok bool) {
	rest, ok := strings.CutPrefix(name, "layers.")
	if !ok {
		return 0, false, false
	}
	digits, kind, ok := strings.Cut(rest, ".")
	if !ok || (kind != "weight" && kind != "bias") {
		return 0, false, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || strconv.Itoa(i) != digits {
		return 0, false, false
	}
	return i, kind == "weight", true
}

// readN reads exactly n bytes. With exact (the input length was checked),
// the buffer is allocated at once; from a stream it grows with the bytes
// that really arrive, so a lying header cannot force a large allocation.
func readN(r io.Reader, n int64, exact bool) ([]byte, error) {
	var b []byte
	var got int64
	var err error
	if exact {
		b = make([]byte, n)
		var m int
		m, err = io.ReadFull(r, b)
		got = int64(m)
	} else {
		var buf bytes.Buffer
		got, err = buf.ReadFrom(io.LimitReader(r, n))
		if err == nil && got < n {
			err = io.ErrUnexpectedEOF
		}
		b = buf.Bytes()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return nil, errf(ErrTruncated, "input ends %d bytes early", n-got)
	}
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return b, nil
}
