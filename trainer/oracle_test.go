package trainer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// oracleDecisions are decision records with ties within groups, groups of
// one, and behaviour log-probabilities present on some rows (far enough
// from the policy's that both clip sides are active) and absent on others.
func oracleDecisions(policy *nn.MLP[float32], n int) []data.Decision {
	rng := rand.New(rand.NewPCG(11, 12))
	var ds []data.Decision
	x := make([]float32, policy.In())
	logits := make([]float32, nn.NumActions)
	lp := make([]float32, nn.NumActions)
	for i := 0; i < n; i++ {
		d := data.Decision{Kind: data.KindDecision, Features: make([]float64, policy.In())}
		for j := range d.Features {
			d.Features[j] = math.Round(rng.NormFloat64()*1e4) / 1e4
			x[j] = float32(d.Features[j])
		}
		d.Action = metapolicy.Action(rng.IntN(nn.NumActions))
		d.Reward = float64(rng.IntN(4)) - 1 // ties on purpose
		d.Group = fmt.Sprintf("task-%d", rng.IntN(n/6+1))
		if rng.IntN(3) > 0 {
			policy.Logits(logits, x)
			nn.LogSoftmaxTo(lp, logits)
			v := float64(lp[d.Action]) + 0.6*rng.NormFloat64()
			v = math.Min(v, -1e-3)
			d.LogProb = &v
		}
		ds = append(ds, d)
	}
	return ds
}

// oracleDType is the PyTorch oracle's arithmetic. In float32 the oracle's
// own rounding depends on the BLAS kernels OpenBLAS picks for the host's
// CPU: on one host an Adam step amplified it past the tolerance on one
// parameter where another host's kernels did not. In float64 the oracle is
// the same on every host, and a comparison measures mpdf's float32 error
// alone.
const oracleDType = "float64"

// TestStepMatchesPyTorch runs K full-batch SoftRankPO steps (advantages,
// loss, backward, Adam) from the same safetensors weights on the same
// decision records in mpdf and in oracle/torch_reference.py, with
// both backends, and compares the resulting weights.
func TestStepMatchesPyTorch(t *testing.T) {
	testStepMatchesPyTorch(t, nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.05, Entropy: 0.01})
}

// TestRankMatchStepMatchesPyTorch is TestStepMatchesPyTorch for the
// rank-matching loss: groups of one, ties and groups of many, both
// backends. The reference is the initial policy, so the first step's h is 0
// and the later steps' is not.
func TestRankMatchStepMatchesPyTorch(t *testing.T) {
	testStepMatchesPyTorch(t, nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.5, Entropy: 0.01, Kind: nn.LossRankMatch})
}

func testStepMatchesPyTorch(t *testing.T, loss nn.LossConfig) {
	py, torchReference := testenv.Oracle(t)
	const steps = 3
	dir := t.TempDir()
	policy, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 32, 32, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	policy.Init(3)
	ds := oracleDecisions(policy, 300)

	w0, dpath, w1 := filepath.Join(dir, "w0.safetensors"), filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "w1.safetensors")
	meta := map[string]string{"activation": "tanh", "feature_version": metapolicy.FeatureVersion}
	if err := checkpoints.SaveSafetensors(w0, policy, meta); err != nil {
		t.Fatal(err)
	}
	w, err := data.Create(dpath)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds {
		if err := w.WriteDecision(&ds[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, torchReference, "step", "--dtype", oracleDType, "--init", w0, "--decisions", dpath, "--out", w1,
		"--steps", fmt.Sprint(steps), "--beta", fmt.Sprint(loss.Beta), "--entropy", fmt.Sprint(loss.Entropy),
		"--eps-low", fmt.Sprint(loss.EpsLow), "--eps-high", fmt.Sprint(loss.EpsHigh), "--loss", nn.LossName(loss.Kind))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torch_reference.py step: %v\n%s", err, out)
	}
	want, _, err := checkpoints.LoadSafetensors(w1)
	if err != nil {
		t.Fatal(err)
	}

	kernel, err := NewKernelBackend(policy.Sizes, policy.Act, loss, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer kernel.Close()
	graph, err := autodiff.New[float32](policy.Sizes, policy.Act, loss)
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()

	for name, backend := range map[string]Backend{"kernel": kernel, "gorgonia": graph} {
		t.Run(name, func(t *testing.T) {
			got := policy.Clone()
			st, err := NewStepper(backend, got, policy, DefaultStepConfig())
			if err != nil {
				t.Fatal(err)
			}
			var s Samples
			if err := AppendDecisions(&s, ds, got.In()); err != nil {
				t.Fatal(err)
			}
			// As the oracle does: absent behaviour log-probs are the
			// policy's at the start of the update, fixed for all K steps.
			start := make([]float64, s.Len())
			if err := st.PolicyLogProbsTo(start, s.Features, s.Actions); err != nil {
				t.Fatal(err)
			}
			for i, v := range s.LogProb {
				if math.IsNaN(v) {
					s.LogProb[i] = start[i]
				}
			}
			clipped := 0.0
			for k := 0; k < steps; k++ {
				m, err := st.Step(&s, nn.DefaultAdam().LR)
				if err != nil {
					t.Fatal(err)
				}
				clipped += m.ClipLow * m.ClipHigh
			}
			if clipped == 0 && !loss.RankMatch() {
				t.Error("the batch did not exercise both clip sides")
			}
			compareParams(t, got.Params, want.Params, policy.Params)
		})
	}
}

// compareParams checks got against want to 1e-5 relative to each weight's
// change scale: |got − want| ≤ 1e-5·|want| + 1e-5·|want − init|.
func compareParams(t *testing.T, got, want, init []float32) {
	t.Helper()
	compareParamsTol(t, got, want, init, 1e-5)
}

// compareParamsTol is compareParams with the relative tolerance rel in
// place of 1e-5.
func compareParamsTol(t *testing.T, got, want, init []float32, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d parameters, oracle has %d", len(got), len(want))
	}
	bad, worst, used := 0, 0.0, 0.0
	for i := range got {
		g, w, w0 := float64(got[i]), float64(want[i]), float64(init[i])
		d := math.Abs(g - w)
		tol := rel*math.Abs(w) + rel*math.Abs(w-w0) + 1e-9
		used = max(used, d/tol)
		if d > tol {
			bad++
			if bad <= 5 {
				t.Errorf("param %d: got %.9g, oracle %.9g (start %.9g)", i, g, w, w0)
			}
		}
		worst = max(worst, d/max(math.Abs(w), 1e-12))
	}
	if bad > 0 {
		t.Errorf("%d of %d parameters differ from the PyTorch oracle", bad, len(got))
	}
	t.Logf("worst relative difference to the oracle: %.3g; at most %.0f%% of the tolerance used", worst, 100*used)
}

// Several networks (decoupled agents) against the PyTorch oracle's
// --nets mode: three networks and a reference, each row trained by its
// network, the batch mean over all rows, one Adam over every network; K
// steps on both backends match the oracle's weights.
func TestNetsStepMatchesPyTorch(t *testing.T) {
	testNetsStepMatchesPyTorch(t, nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.05, Entropy: 0.01})
}

// TestNetsRankMatchStepMatchesPyTorch is TestNetsStepMatchesPyTorch for
// the rank-matching loss: one centring over each group's rows across the
// networks (the oracle's --nets --loss rank-match).
func TestNetsRankMatchStepMatchesPyTorch(t *testing.T) {
	testNetsStepMatchesPyTorch(t, nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.5, Entropy: 0.01, Kind: nn.LossRankMatch})
}

func testNetsStepMatchesPyTorch(t *testing.T, loss nn.LossConfig) {
	py, torchReference := testenv.Oracle(t)
	const steps, K = 3, 3
	ref, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 16, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	ref.Init(3)
	// Networks near the reference (each moved its own way), so that the
	// behaviour log-probabilities drawn around the reference's keep both
	// clip sides active without clipping every row.
	nets := make([]*nn.MLP[float32], K)
	rng := rand.New(rand.NewPCG(5, uint64(K)))
	for k := range nets {
		nets[k] = ref.Clone()
		for i := range nets[k].Params {
			nets[k].Params[i] += float32(0.05 * rng.NormFloat64())
		}
	}
	ds := oracleDecisions(ref, 240)
	netOf := make([]int32, len(ds))
	for i := range netOf {
		netOf[i] = int32((i * 7 / 3) % K)
	}
	want := netsOracle(t, py, torchReference, ref, nets, ds, netOf, steps, loss)
	kernel, err := NewKernelBackend(ref.Sizes, ref.Act, loss, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer kernel.Close()
	graph, err := autodiff.New[float32](ref.Sizes, ref.Act, loss)
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	for name, backend := range map[string]Backend{"kernel": kernel, "gorgonia": graph} {
		t.Run(name, func(t *testing.T) {
			st, err := NewStepper(backend, nets[0].Clone(), ref, DefaultStepConfig())
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k < K; k++ {
				if _, err := st.AddNet(); err != nil {
					t.Fatal(err)
				}
				copy(st.Nets()[k].Params, nets[k].Params)
			}
			var s Samples
			if err := AppendDecisions(&s, ds, ref.In()); err != nil {
				t.Fatal(err)
			}
			s.Nets = netOf
			start := make([]float64, s.Len())
			if err := st.NetsLogProbsTo(start, s.Features, s.Actions, s.Nets); err != nil {
				t.Fatal(err)
			}
			for i, v := range s.LogProb {
				if math.IsNaN(v) {
					s.LogProb[i] = start[i]
				}
			}
			for range steps {
				if _, err := st.Step(&s, nn.DefaultAdam().LR); err != nil {
					t.Fatal(err)
				}
			}
			for k := range K {
				compareParams(t, st.Nets()[k].Params, want.Nets[k].Params, nets[k].Params)
			}
		})
	}
}

// netsOracle is what the PyTorch oracle makes of nets (one per slot, ref
// the fallback and reference) after steps of loss on ds, row i trained by
// net netOf[i].
func netsOracle(t *testing.T, py, torchReference string, ref *nn.MLP[float32], nets []*nn.MLP[float32], ds []data.Decision, netOf []int32, steps int, loss nn.LossConfig) *checkpoints.Networks {
	dir := t.TempDir()
	w0, dpath, w1 := filepath.Join(dir, "w0.safetensors"), filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "w1.safetensors")
	keys := []string{"slot:0", "slot:1", "slot:2"}
	if err := checkpoints.SaveSafetensorsNets(w0, &checkpoints.Networks{By: metapolicy.AgentSlot, Keys: keys, Nets: nets, Fallback: ref},
		map[string]string{"feature_version": metapolicy.FeatureVersion}); err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for i, d := range ds {
		rec := map[string]any{"features": d.Features, "action": d.Action.String(), "reward": d.Reward, "group": d.Group, "net": netOf[i]}
		if d.LogProb != nil {
			rec["logprob"] = *d.LogProb
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(dpath, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, torchReference, "step", "--dtype", oracleDType, "--nets", "--init", w0, "--decisions", dpath, "--out", w1,
		"--steps", fmt.Sprint(steps), "--beta", fmt.Sprint(loss.Beta), "--entropy", fmt.Sprint(loss.Entropy),
		"--eps-low", fmt.Sprint(loss.EpsLow), "--eps-high", fmt.Sprint(loss.EpsHigh), "--loss", nn.LossName(loss.Kind))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torch_reference.py step --nets: %v\n%s", err, out)
	}
	_, want, _, err := checkpoints.LoadSafetensorsAny(w1)
	if err != nil || want == nil {
		t.Fatalf("oracle output: %v", err)
	}
	return want
}

// TestAttentionStepMatchesPyTorch is TestStepMatchesPyTorch for the
// attention network (design §4): peers-v1 rows of teams of 2..8
// (real featurizer output), both losses, both backends, K steps of Adam over
// every parameter, compared with oracle/torch_reference.py step --arch
// attention.
func TestAttentionStepMatchesPyTorch(t *testing.T) {
	for _, loss := range []nn.LossConfig{
		{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.05, Entropy: 0.01},
		{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.5, Entropy: 0.01, Kind: nn.LossRankMatch},
	} {
		t.Run(nn.LossName(loss.Kind), func(t *testing.T) { testAttentionStep(t, loss) })
	}
}

func testAttentionStep(t *testing.T, loss nn.LossConfig) {
	py, torchReference := testenv.Oracle(t)
	const steps, d = 3, 8
	policy, err := nn.NewAttention[float32](d, []int{nn.AttnSelf + d, 24, 24, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	policy.Init(5)
	for i := range policy.Params[:nn.AttnParams(d)] { // sharper attention than the init's
		policy.Params[i] *= 4
	}
	ds := oracleDecisions(policy, 300)
	peerRows(t, policy, ds)
	want := attentionOracle(t, py, torchReference, policy, d, ds, steps, loss)
	kernel, err := NewKernelBackendAttn(d, policy.Sizes, policy.Act, loss, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer kernel.Close()
	graph, err := autodiff.NewAttention[float32](d, policy.Sizes, policy.Act, loss)
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	for name, backend := range map[string]Backend{"kernel": kernel, "gorgonia": graph} {
		t.Run(name, func(t *testing.T) {
			got := policy.Clone()
			st, err := NewStepper(backend, got, policy, DefaultStepConfig())
			if err != nil {
				t.Fatal(err)
			}
			var s Samples
			if err := AppendDecisions(&s, ds, got.In()); err != nil {
				t.Fatal(err)
			}
			start := make([]float64, s.Len())
			if err := st.PolicyLogProbsTo(start, s.Features, s.Actions); err != nil {
				t.Fatal(err)
			}
			for i, v := range s.LogProb {
				if math.IsNaN(v) {
					s.LogProb[i] = start[i]
				}
			}
			clipped := 0.0
			for range steps {
				m, err := st.Step(&s, nn.DefaultAdam().LR)
				if err != nil {
					t.Fatal(err)
				}
				clipped += m.ClipLow * m.ClipHigh
			}
			if clipped == 0 && !loss.RankMatch() {
				t.Error("the batch did not exercise both clip sides")
			}
			// The softmax over peers is shift-invariant, so the exact
			// gradient of bk and of Wk's column of the present flag (1 in
			// every present slot) is zero at every step; Adam turns each
			// implementation's rounding noise there (float32: ~1e-9) into
			// steps of its own (a step of lr·g/(|g|+ε)). Those 2d
			// parameters are left out, and every other front parameter
			// must have moved.
			null := map[int]bool{}
			for i := range d {
				wk := d*nn.AttnSelf + d         // after Wq and bq
				null[wk+i*nn.AttnPeer] = true   // Wk[i][present]
				null[wk+d*nn.AttnPeer+i] = true // bk[i]
			}
			g0, w0, w1 := []float32{}, []float32{}, []float32{}
			for i := range got.Params {
				if null[i] {
					continue
				}
				if i < nn.AttnParams(d) && got.Params[i] == policy.Params[i] {
					t.Errorf("front parameter %d did not move", i)
				}
				g0, w0, w1 = append(g0, got.Params[i]), append(w0, policy.Params[i]), append(w1, want.Params[i])
			}
			// Gorgonia's float32 graph rounds every op of the front to
			// float32 (nn sums in float64): a looser bound for it.
			compareParamsTol(t, g0, w1, w0, map[string]float64{"kernel": 1e-5, "gorgonia": 1e-4}[name])
		})
	}
}

// peerRows makes the rows of ds real peers-v1 rows: teams of 2..8 agents,
// answers and confidences drawn, and behaviour log-probabilities near the
// policy's where a row has one, as oracleDecisions draws them.
func peerRows(t *testing.T, policy *nn.MLP[float32], ds []data.Decision) {
	rng := rand.New(rand.NewPCG(8, 9))
	fz, _ := metapolicy.FeaturizerFor(metapolicy.FeatureVersionPeers)
	for i := range ds {
		n := 2 + rng.IntN(7)
		obs := metapolicy.Observation{Self: rng.IntN(n), Round: 1 + rng.IntN(2), Rounds: 2}
		for range n {
			a := metapolicy.AgentState{Answer: fmt.Sprint(rng.IntN(3)), Confidence: rng.Float64(),
				Profile: metapolicy.Profile{Tokens: rng.IntN(2000), Steps: rng.IntN(9), Hedges: rng.IntN(3), SelfConfidence: rng.Float64()}}
			if rng.IntN(4) == 0 {
				a.Confidence = metapolicy.Missing
			}
			if rng.IntN(4) == 0 {
				a.Profile.SelfConfidence = metapolicy.Missing
			}
			if rng.IntN(6) == 0 {
				a.Answer = ""
			}
			obs.Agents = append(obs.Agents, a)
		}
		if err := fz.Featurize(ds[i].Features, &obs); err != nil {
			t.Fatal(err)
		}
		x := make([]float32, nn.AttnIn)
		for k, v := range ds[i].Features {
			x[k] = float32(v)
		}
		if ds[i].LogProb != nil { // behaviour near the policy's, as oracleDecisions draws it
			var z, lp [nn.NumActions]float32
			policy.Logits(z[:], x)
			nn.LogSoftmaxTo(lp[:], z[:])
			v := math.Min(float64(lp[ds[i].Action])+0.6*rng.NormFloat64(), -1e-3)
			ds[i].LogProb = &v
		}
	}
}

// attentionOracle is the PyTorch oracle's attention policy (width d) after
// steps of loss on ds from policy.
func attentionOracle(t *testing.T, py, torchReference string, policy *nn.MLP[float32], d int, ds []data.Decision, steps int, loss nn.LossConfig) *nn.MLP[float32] {
	dir := t.TempDir()
	w0, dpath, w1 := filepath.Join(dir, "w0.safetensors"), filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "w1.safetensors")
	if err := checkpoints.SaveSafetensors(w0, policy, map[string]string{"feature_version": metapolicy.FeatureVersionPeers}); err != nil {
		t.Fatal(err)
	}
	w, err := data.Create(dpath)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds {
		if err := w.WriteDecision(&ds[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, torchReference, "step", "--dtype", oracleDType, "--arch", "attention", "--attn-dim", fmt.Sprint(d),
		"--init", w0, "--decisions", dpath, "--out", w1,
		"--steps", fmt.Sprint(steps), "--beta", fmt.Sprint(loss.Beta), "--entropy", fmt.Sprint(loss.Entropy),
		"--eps-low", fmt.Sprint(loss.EpsLow), "--eps-high", fmt.Sprint(loss.EpsHigh), "--loss", nn.LossName(loss.Kind))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torch_reference.py step --arch attention: %v\n%s", err, out)
	}
	want, meta, err := checkpoints.LoadSafetensors(w1, checkpoints.WithFeatureVersion(metapolicy.FeatureVersionPeers))
	if err != nil {
		t.Fatal(err)
	}
	if want.Attn != d || meta["arch"] != "attention" {
		t.Fatalf("oracle output: attention width %d, metadata %v", want.Attn, meta)
	}
	return want
}
