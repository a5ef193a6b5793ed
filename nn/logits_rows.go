package nn

import "fmt"

// LogitsRows computes Logits for each of the rows of x (row-major, In()
// features a row) into dst (Out() logits a row), bit for bit what Logits
// gives row by row: every output is the same float64 sum in the same order
// (bias first, then the inputs in order), activated and rounded to T after
// each layer. It is the batched forward pass of decision time: the episodes
// of a round decide together, and their probabilities must not change by
// one bit for being batched (episode files record them), which the
// training kernels' float32 sums would. What it gains over Logits: weights
// and activations are widened to float64 once per call instead of once per
// product (exactly: every T is a float64), a block of 2 rows × 4 outputs
// shares each load and keeps eight sums in flight instead of waiting on one,
// and nothing is allocated once buf is large enough.
//
// On amd64 the sums run on generated vector kernels (panelSums: a panel of
// 4 or 8 rows in the lanes of a vector, each lane the scalar loop's own
// multiply and add, no FMA); elsewhere on a portable loop.
//
// buf is scratch, grown when short; the (possibly new) buffer is returned for
// the next call. Shape errors panic, as Logits does.
func (m *MLP[T]) LogitsRows(dst, x []T, buf []float64) []float64 {
	return m.logitsRows(panelSets()[0], dst, x, buf)
}

// logitsRows is LogitsRows on the kernels ps (nil: the portable loop).
func (m *MLP[T]) logitsRows(ps *panelSet, dst, x []T, buf []float64) []float64 {
	in, out := m.In(), m.Out()
	if len(x)%in != 0 || len(dst)*in != len(x)*out {
		panic(fmt.Sprintf("nn: LogitsRows: len(x)=%d len(dst)=%d, want rows of %d and %d", len(x), len(dst), in, out))
	}
	rows := len(x) / in
	if m.Attn > 0 { // Logits row by row, the weights widened once (attention.go)
		attnForwardTo(dst, newAttnNet(m), x)
		return buf
	}
	if rows < minRows { // widening every weight would cost more than it saves
		for r := range rows {
			m.Logits(dst[r*out:(r+1)*out], x[r*in:(r+1)*in])
		}
		return buf
	}
	wide := 0
	for _, s := range m.Sizes {
		wide = max(wide, s)
	}
	if ps != nil {
		return m.logitsPanels(ps, dst, x, buf, rows, wide)
	}
	if need := len(m.Params) + 2*rows*wide; len(buf) < need {
		buf = make([]float64, need)
	}
	params, act := buf[:len(m.Params)], buf[len(m.Params):]
	for i, v := range m.Params {
		params[i] = float64(v)
	}
	h := act[:rows*in]
	for i, v := range x {
		h[i] = float64(v)
	}
	for i := 0; i < m.Layers(); i++ {
		n := m.Sizes[i+1]
		next := act[((i+1)%2)*rows*wide:][:rows*n]
		hidden := i < m.Layers()-1
		layerRows(next, h, LayerWeight(m.Sizes, params, i), LayerBias(m.Sizes, params, i), rows, m.Sizes[i], n)
		for j, s := range next { // activate and round as Logits does
			if hidden {
				s = activate(m.Act, s)
			}
			next[j] = float64(T(s))
		}
		h = next
	}
	for i, v := range h {
		dst[i] = T(v)
	}
	return buf
}

// logitsPanels is LogitsRows on vector kernels. The rows go in panels of
// ps.lanes, transposed: panel g holds, for each input k, the lanes' values
// side by side, so a kernel multiplies one vector of h by one broadcast
// weight; a layer's output panels are the next layer's input panels. The
// last panel's spare lanes compute zeros' outputs, which are dropped.
func (m *MLP[T]) logitsPanels(ps *panelSet, dst, x []T, buf []float64, rows, wide int) []float64 {
	l := ps.lanes
	groups := (rows + l - 1) / l
	span := groups * wide * l
	if need := len(m.Params) + 2*span; len(buf) < need {
		buf = make([]float64, need)
	}
	wT, act := buf[:len(m.Params)], buf[len(m.Params):]
	for i := 0; i < m.Layers(); i++ { // weights transposed to [in][out], biases as they are
		in, out := m.Sizes[i], m.Sizes[i+1]
		w, dw := m.Weight(i), LayerWeight(m.Sizes, wT, i)
		for o := range out {
			for k, v := range w[o*in : (o+1)*in] {
				dw[k*out+o] = float64(v)
			}
		}
		for o, v := range m.Bias(i) {
			LayerBias(m.Sizes, wT, i)[o] = float64(v)
		}
	}
	in := m.In()
	h := act[:groups*in*l]
	clear(h[(groups-1)*in*l:]) // the last panel's spare lanes
	for r := range rows {
		p := h[(r/l)*in*l+r%l:]
		for k, v := range x[r*in : (r+1)*in] {
			p[k*l] = float64(v)
		}
	}
	for i := 0; i < m.Layers(); i++ {
		k, n := m.Sizes[i], m.Sizes[i+1]
		next := act[((i+1)%2)*span:][:groups*n*l]
		w, b := LayerWeight(m.Sizes, wT, i), LayerBias(m.Sizes, wT, i)
		for g := range groups {
			ps.sums(next[g*n*l:(g+1)*n*l], h[g*k*l:(g+1)*k*l], w, b, k, n)
		}
		hidden := i < m.Layers()-1
		for j, s := range next { // activate and round as Logits does
			if hidden {
				s = activate(m.Act, s)
			}
			next[j] = float64(T(s))
		}
		h = next
	}
	out := m.Out()
	for r := range rows {
		p := h[(r/l)*out*l+r%l:]
		for o := range out {
			dst[r*out+o] = T(p[o*l])
		}
	}
	return buf
}

// minRows is the fewest rows LogitsRows widens the weights for
// (BenchmarkLogitsRows: one row costs about 1.5× Logits that way, 8 rows
// less than half).
const minRows = 4

// layerRows is one layer's sums of LogitsRows: next[r][o] = b[o] + Σₖ w[o][k]·h[r][k],
// added from k = 0 up, as in Logits.
func layerRows(next, h, w, b []float64, rows, in, out int) {
	r := 0
	for ; r+2 <= rows; r += 2 {
		h0, h1 := h[r*in:][:in], h[(r+1)*in:][:in]
		n0, n1 := next[r*out:][:out], next[(r+1)*out:][:out]
		o := 0
		for ; o+4 <= out; o += 4 {
			w0, w1, w2, w3 := w[o*in:][:in], w[(o+1)*in:][:in], w[(o+2)*in:][:in], w[(o+3)*in:][:in]
			s00, s01, s02, s03 := b[o], b[o+1], b[o+2], b[o+3]
			s10, s11, s12, s13 := s00, s01, s02, s03
			for k := range in {
				a0, a1 := h0[k], h1[k]
				s00 += w0[k] * a0
				s01 += w1[k] * a0
				s02 += w2[k] * a0
				s03 += w3[k] * a0
				s10 += w0[k] * a1
				s11 += w1[k] * a1
				s12 += w2[k] * a1
				s13 += w3[k] * a1
			}
			n0[o], n0[o+1], n0[o+2], n0[o+3] = s00, s01, s02, s03
			n1[o], n1[o+1], n1[o+2], n1[o+3] = s10, s11, s12, s13
		}
		for ; o < out; o++ {
			wo := w[o*in:][:in]
			s0, s1 := b[o], b[o]
			for k := range in {
				s0 += wo[k] * h0[k]
				s1 += wo[k] * h1[k]
			}
			n0[o], n1[o] = s0, s1
		}
	}
	if r < rows { // the odd row: 1 × 4 blocks
		h0, n0 := h[r*in:][:in], next[r*out:][:out]
		o := 0
		for ; o+4 <= out; o += 4 {
			w0, w1, w2, w3 := w[o*in:][:in], w[(o+1)*in:][:in], w[(o+2)*in:][:in], w[(o+3)*in:][:in]
			s0, s1, s2, s3 := b[o], b[o+1], b[o+2], b[o+3]
			for k := range in {
				a := h0[k]
				s0 += w0[k] * a
				s1 += w1[k] * a
				s2 += w2[k] * a
				s3 += w3[k] * a
			}
			n0[o], n0[o+1], n0[o+2], n0[o+3] = s0, s1, s2, s3
		}
		for ; o < out; o++ {
			wo := w[o*in:][:in]
			s := b[o]
			for k := range in {
				s += wo[k] * h0[k]
			}
			n0[o] = s
		}
	}
}
