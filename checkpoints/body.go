package checkpoints

// Determinism.
//
// The same checkpoint always gives the same bytes: the header is encoded by
// encoding/json (struct field order, map keys sorted; train and data_pos are
// compacted), floats are stored bit for bit, and one zstd encoder with fixed
// settings (default level, one goroutine per call) compresses. The file holds
// no time stamp and no host name. Two runs with the same seed and the same
// data therefore write byte-identical checkpoints, and a run stopped, loaded
// and continued writes the same bytes as one that never stopped. (Another
// version of the zstd library may compress differently; the body, which the
// golden test pins, does not change within a format version.)

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// diskHeader is the JSON header of the body: the caller's Header plus what
// the reader needs to lay out the arrays that follow it.
type diskHeader struct {
	Header
	Model     diskModel `json:"model"`
	Reference bool      `json:"reference"`
	Adam      *diskAdam `json:"adam,omitempty"`
	RNGBytes  int       `json:"rng_bytes"`
	// Networks are Checkpoint.NetKeys; with them the policy array and
	// Adam's hold every network, one after another. Absent: one network.
	Networks []string `json:"networks,omitempty"`
}

type diskModel struct {
	Sizes      []int  `json:"sizes"`
	Activation string `json:"activation"`
	// Attn is nn.MLP.Attn, the attention front's width; omitted for an
	// MLP, so MLP checkpoints keep their bytes.
	Attn int `json:"attn,omitempty"`
}

type diskAdam struct {
	Config nn.AdamConfig `json:"config"`
	Step   int64         `json:"step"`
}

// maxLayerWidth bounds every size in a header so that products of two sizes
// cannot overflow before they are compared with the body length.
const maxLayerWidth = 1 << 30

// maxHeaderBytes bounds the JSON header of a body (a run's header holds its
// config, metrics and data position: a few KB). A reader decompresses at
// most this much before it knows whether the body's length is the one the
// header accounts for.
const maxHeaderBytes = 16 << 20

// encodeBody checks c and returns the uncompressed body.
func encodeBody(c *Checkpoint) ([]byte, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	h := diskHeader{
		Header:    c.Header,
		Model:     diskModel{Sizes: c.Policy.Sizes, Activation: c.Policy.Act.String(), Attn: c.Policy.Attn},
		Reference: c.Reference != nil,
		RNGBytes:  len(c.RNG),
		Networks:  c.NetKeys,
	}
	if c.Adam != nil {
		h.Adam = &diskAdam{Config: c.Adam.Config, Step: c.Adam.Step}
	}
	js, err := json.Marshal(&h)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if len(js) > maxHeaderBytes {
		return nil, fmt.Errorf("header: %d bytes of JSON, limit %d", len(js), maxHeaderBytes)
	}
	arrays := [][]float32{c.Policy.Params}
	if c.NetKeys != nil {
		all := make([]float32, 0, len(c.Policy.Params)*len(c.Nets))
		for _, m := range c.Nets {
			all = append(all, m.Params...)
		}
		arrays[0] = all
	}
	if c.Reference != nil {
		arrays = append(arrays, c.Reference.Params)
	}
	if c.Adam != nil {
		arrays = append(arrays, c.Adam.M, c.Adam.V)
	}
	n := 4 + len(js) + len(c.RNG)
	for _, a := range arrays {
		n += 4 * len(a)
	}
	body := make([]byte, 0, n)
	body = binary.LittleEndian.AppendUint32(body, uint32(len(js)))
	body = append(body, js...)
	for _, a := range arrays {
		body = appendPlanes(body, a)
	}
	return append(body, c.RNG...), nil
}

// validate applies to a checkpoint about to be written the rules a reader
// applies to one it has read.
func validate(c *Checkpoint) error {
	if c == nil || c.Policy == nil {
		return errors.New("policy is nil")
	}
	if c.Header.FeatureVersion == "" {
		return errors.New("header: feature_version is empty")
	}
	if c.Header.Step < 0 {
		return fmt.Errorf("header: step %d, want ≥ 0", c.Header.Step)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Header.Metrics)) {
		if v := c.Header.Metrics[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("header: metric %q is %v, want a finite value", k, v)
		}
	}
	if len(c.Header.Train) > 0 && !json.Valid(c.Header.Train) {
		return errors.New("header: train is not valid JSON")
	}
	if len(c.Header.DataPos) > 0 && !json.Valid(c.Header.DataPos) {
		return errors.New("header: data_pos is not valid JSON")
	}
	p := c.Policy
	if err := checkModel(p.Sizes, p.Act); err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	n, err := nn.ParamCount(p.Sizes, p.Attn)
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if len(p.Params) != n {
		return fmt.Errorf("policy: %d params, sizes %v (attention width %d) need %d", len(p.Params), p.Sizes, p.Attn, n)
	}
	if err := checkFinite(p.Params, false); err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if r := c.Reference; r != nil {
		if !slices.Equal(r.Sizes, p.Sizes) || r.Act != p.Act || r.Attn != p.Attn {
			return fmt.Errorf("reference: sizes %v %v, want the policy's %v %v", r.Sizes, r.Act, p.Sizes, p.Act)
		}
		if len(r.Params) != n {
			return fmt.Errorf("reference: %d params, want %d", len(r.Params), n)
		}
		if err := checkFinite(r.Params, false); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
	}
	nets := 1
	if c.NetKeys != nil {
		if err := validateNets(c, n); err != nil {
			return err
		}
		nets = len(c.Nets)
	}
	if a := c.Adam; a != nil {
		if err := checkAdam(a.Config, a.Step); err != nil {
			return err
		}
		if len(a.M) != n*nets || len(a.V) != n*nets {
			return fmt.Errorf("adam: moments of length %d and %d, want %d", len(a.M), len(a.V), n*nets)
		}
		if err := checkFinite(a.M, false); err != nil {
			return fmt.Errorf("adam: m: %w", err)
		}
		if err := checkFinite(a.V, true); err != nil {
			return fmt.Errorf("adam: v: %w", err)
		}
	}
	return nil
}

// validateNets checks the networks of a decoupled policy: keys that pair
// with networks of the policy's shape (n parameters), Nets[0] the policy,
// and a reference.
func validateNets(c *Checkpoint, n int) error {
	if _, err := metapolicy.AgentPolicyOf(c.NetKeys); err != nil {
		return fmt.Errorf("networks: %w", err)
	}
	switch {
	case len(c.NetKeys) != len(c.Nets):
		return fmt.Errorf("networks: %d keys for %d networks", len(c.NetKeys), len(c.Nets))
	case c.Nets[0] != c.Policy:
		return errors.New("networks: the first network is not the policy")
	case c.Reference == nil:
		return errors.New("networks: no reference (the fallback and every network's start)")
	}
	seen := map[string]bool{}
	for k, m := range c.Nets {
		if seen[c.NetKeys[k]] {
			return fmt.Errorf("networks: %q twice", c.NetKeys[k])
		}
		seen[c.NetKeys[k]] = true
		if m == nil || !slices.Equal(m.Sizes, c.Policy.Sizes) || m.Act != c.Policy.Act || m.Attn != c.Policy.Attn || len(m.Params) != n {
			return fmt.Errorf("networks: network %q is not of the policy's shape", c.NetKeys[k])
		}
		if err := checkFinite(m.Params, false); err != nil {
			return fmt.Errorf("networks: %q: %w", c.NetKeys[k], err)
		}
	}
	return nil
}

func checkModel(sizes []int, act nn.Activation) error {
	if _, err := nn.NumParams(sizes); err != nil {
		return err
	}
	for i, s := range sizes {
		if s > maxLayerWidth {
			return fmt.Errorf("size %d is %d, limit %d", i, s, maxLayerWidth)
		}
	}
	if _, err := nn.ParseActivation(act.String()); err != nil {
		return err
	}
	return nil
}

func checkAdam(c nn.AdamConfig, step int64) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("adam: %w", err)
	}
	if step < 0 {
		return fmt.Errorf("adam: step %d, want ≥ 0", step)
	}
	return nil
}

// checkFinite reports the first NaN or infinity in a (or negative value,
// when nonNeg).
func checkFinite(a []float32, nonNeg bool) error {
	for i, v := range a {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) || (nonNeg && f < 0) {
			return fmt.Errorf("[%d] is %v", i, v)
		}
	}
	return nil
}

// decodeBody parses an uncompressed body. Every failure is ErrCorrupt but a
// feature-schema mismatch, which is checked last, on an otherwise sound body.
func decodeBody(body []byte, featureVersion string) (*Checkpoint, error) {
	if len(body) < 4 {
		return nil, errf(ErrCorrupt, "body of %d bytes", len(body))
	}
	hlen := uint64(binary.LittleEndian.Uint32(body))
	if hlen > uint64(len(body)-4) {
		return nil, errf(ErrCorrupt, "body offset 0: header of %d bytes in a body of %d", hlen, len(body))
	}
	h, err := parseHeader(body[4 : 4+hlen])
	if err != nil {
		return nil, err
	}
	rest := body[4+hlen:]
	c, err := layOut(h, rest)
	if err != nil {
		return nil, errf(ErrCorrupt, "body offset %d: %v", 4+hlen, err)
	}
	if featureVersion != "" && h.FeatureVersion != featureVersion {
		return nil, errf(ErrFeatureSchema, "feature_version %q, want %q", h.FeatureVersion, featureVersion)
	}
	return c, nil
}

// parseHeader decodes the JSON header, the bytes at body offset 4.
func parseHeader(b []byte) (*diskHeader, error) {
	var h diskHeader
	// Strict first (jsonscan): a key given twice or matching a field only
	// regardless of case, or bad UTF-8, is refused, not resolved by
	// encoding/json's last-wins and case folding.
	if err := jsonscan.CheckStrict(b, &h); err != nil {
		return nil, errf(ErrCorrupt, "body offset 4: header JSON: %v", err)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, errf(ErrCorrupt, "body offset %d: header JSON: %v", 4+se.Offset, err)
		}
		return nil, errf(ErrCorrupt, "body offset 4: header JSON: %v", err)
	}
	return &h, nil
}

// layOut checks header h against the arrays in data and builds the
// checkpoint.
func layOut(h *diskHeader, data []byte) (*Checkpoint, error) {
	l, err := checkHeader(h, uint64(len(data)))
	if err != nil {
		return nil, err
	}
	act, params, nets := l.act, l.params, l.nets

	n := int(params)
	off := 0
	next := func(what string, nonNeg bool, times uint64) ([]float32, error) {
		n := n * int(times)
		a := make([]float32, n)
		planesTo(a, data[off:off+4*n])
		if err := checkFinite(a, nonNeg); err != nil {
			return nil, fmt.Errorf("%s at body offset +%d: %w", what, off, err)
		}
		off += 4 * n
		return a, nil
	}
	mlp := func(params []float32) *nn.MLP[float32] {
		return &nn.MLP[float32]{Sizes: slices.Clone(h.Model.Sizes), Act: act, Params: params, Attn: h.Model.Attn}
	}
	c := &Checkpoint{Header: h.Header}
	p, err := next("policy", false, nets)
	if err != nil {
		return nil, err
	}
	if h.Networks != nil {
		c.NetKeys = h.Networks
		for k := range h.Networks {
			c.Nets = append(c.Nets, mlp(p[k*n:(k+1)*n:(k+1)*n]))
		}
		p = p[:n:n]
	}
	c.Policy = mlp(p)
	if c.Nets != nil {
		c.Nets[0] = c.Policy
	}
	if h.Reference {
		r, err := next("reference", false, 1)
		if err != nil {
			return nil, err
		}
		c.Reference = mlp(r)
	}
	if h.Adam != nil {
		m, err := next("adam m", false, nets)
		if err != nil {
			return nil, err
		}
		v, err := next("adam v", true, nets)
		if err != nil {
			return nil, err
		}
		c.Adam = &nn.Adam[float32]{Config: h.Adam.Config, M: m, V: v, Step: h.Adam.Step}
	}
	if h.RNGBytes > 0 {
		c.RNG = bytes.Clone(data[off:])
	}
	if c.NetKeys != nil {
		if err := validateNets(c, n); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// checkHeader checks the header h and the model it describes against the
// avail bytes that follow the header. It reads only the header, so a reader can refuse a body whose
// header does not account for its length before decompressing the rest.
// layout is what a checked header says of the arrays after it.
type layout struct {
	act    nn.Activation
	params uint64 // one network's parameters
	nets   uint64 // networks in the policy array and in each of Adam's
}

func checkHeader(h *diskHeader, avail uint64) (l layout, err error) {
	if h.FeatureVersion == "" {
		return l, errors.New("header: feature_version is empty")
	}
	if h.Step < 0 {
		return l, fmt.Errorf("header: step %d, want ≥ 0", h.Step)
	}
	l.act, err = nn.ParseActivation(h.Model.Activation)
	if err != nil {
		return l, fmt.Errorf("header: model: %w", err)
	}
	if err = checkModel(h.Model.Sizes, l.act); err != nil {
		return l, fmt.Errorf("header: model: %w", err)
	}
	if a := h.Model.Attn; a != 0 {
		if a < 0 || a > maxLayerWidth {
			return l, fmt.Errorf("header: model: attention width %d", a)
		}
		if _, err := nn.ParamCount(h.Model.Sizes, a); err != nil {
			return l, fmt.Errorf("header: model: %w", err)
		}
	}
	// Count parameters, giving up as soon as they outgrow the data, so that
	// the sizes cannot ask for an allocation the body does not back.
	params := uint64(nn.AttnParams(h.Model.Attn))
	for i := 1; i < len(h.Model.Sizes); i++ {
		in, out := uint64(h.Model.Sizes[i-1]), uint64(h.Model.Sizes[i])
		params += in*out + out
		if 4*params > avail {
			return l, fmt.Errorf("header: model %v needs more than the %d bytes that follow", h.Model.Sizes, avail)
		}
	}
	// In units of one network's parameters: the policy and Adam's moments
	// hold every network's.
	nets := uint64(1)
	if h.Networks != nil {
		if _, err := metapolicy.AgentPolicyOf(h.Networks); err != nil {
			return l, fmt.Errorf("header: networks: %w", err)
		}
		if !h.Reference {
			return l, errors.New("header: networks without a reference")
		}
		nets = uint64(len(h.Networks))
		if 4*params*nets > avail {
			return l, fmt.Errorf("header: %d networks of %v need more than the %d bytes that follow", nets, h.Model.Sizes, avail)
		}
	}
	arrays := nets
	if h.Reference {
		arrays++
	}
	if h.Adam != nil {
		if err := checkAdam(h.Adam.Config, h.Adam.Step); err != nil {
			return l, fmt.Errorf("header: %w", err)
		}
		arrays += 2 * nets
	}
	if h.RNGBytes < 0 {
		return l, fmt.Errorf("header: rng_bytes %d", h.RNGBytes)
	}
	if want := 4*params*arrays + uint64(h.RNGBytes); want != avail {
		return l, fmt.Errorf("header: model %v with %d arrays and %d RNG bytes needs %d bytes, the body holds %d",
			h.Model.Sizes, arrays, h.RNGBytes, want, avail)
	}

	return layout{act: l.act, params: params, nets: nets}, nil
}

// appendPlanes appends a as four byte planes: byte 0 of every little-endian
// float32, then byte 1, byte 2, byte 3 (the shuffle filter of HDF5 and
// Blosc). The planes holding sign and exponent are repetitive, which zstd
// can exploit; interleaved, the random mantissas hide them.
func appendPlanes(dst []byte, a []float32) []byte {
	n := len(a)
	dst = slices.Grow(dst, 4*n)
	p := dst[len(dst) : len(dst)+4*n]
	for i, v := range a {
		u := math.Float32bits(v)
		p[i], p[n+i], p[2*n+i], p[3*n+i] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return dst[:len(dst)+4*n]
}

// planesTo is the inverse of appendPlanes: len(p) == 4*len(dst).
func planesTo(dst []float32, p []byte) {
	n := len(dst)
	p0, p1, p2, p3 := p[:n], p[n:2*n], p[2*n:3*n], p[3*n:4*n]
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(p0[i]) | uint32(p1[i])<<8 | uint32(p2[i])<<16 | uint32(p3[i])<<24)
	}
}
