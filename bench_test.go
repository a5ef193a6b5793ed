package mpdf_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/internal/peak"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// Benchmarks of the update step on the target model — 32 features, hidden
// 64×64, tanh, 3 actions — side by side, one sub-benchmark per
// implementation (impl=...), so that benchstat -col /impl compares them:
//
//	kernel    the kernels of package nn: Workspace.LossAndGrad and
//	          Adam.UpdateFast (AVX-512 or AVX2 assembly on amd64, the
//	          portable Go loops with -tags noasm or elsewhere)
//	stepper   trainer.Stepper.Step on the same rows, as RL training runs
//	          it: validation, grouping and batch metrics, the loss and
//	          gradient on the kernels, the non-finite checks, the norm clip
//	          and the same Adam kernel; the advantages and the behaviour and
//	          reference log-probabilities come with the batch, as RL.Update
//	          computes them once per rollout batch for all its update epochs
//	          (BenchmarkTrainPass measures that part)
//	stepper-full  Step on bare samples: it also computes the advantages per
//	          group and both log-probabilities (two more forward passes)
//	gorgonia  the Gorgonia graph of package autodiff, and Adam.Update
//
//	go test -run XXX -bench 'Step/.*/dtype=float32/batch=(512|4096)$' -count 6 . | benchstat -col /impl -
//
// FLOPs are counted as 2·in·out per sample for each matrix product a pass
// runs (elementwise work, the loss and Adam are not counted): forward
// 2·Σ in·out = 12 672, backward 2·Σ in·out for the weight gradients plus
// 2·Σ_{l≥1} in·out for the input gradients (none for the features) = 21 248;
// a step is both, 33 920 FLOP per sample. impl=stepper-full counts the same
// FLOPs, though it runs two more forward passes.
//
// The float32 kernels' and Stepper.Step's figures also report their share
// of this machine's float32 multiply-add peak, measured by package
// internal/peak in the same process after each timed loop: "%peak" of the
// machine's (every vCPU's FMA units), "%peak1" of one goroutine's, and
// "peak-GFLOP/s" the machine's. BenchmarkPeak reports the probe alone.

var benchSizes = []int{32, 64, 64, nn.NumActions}

var benchBatches = []int{512, 4096, 65536}

// benchFLOPs returns the forward and backward FLOPs per sample of benchSizes.
func benchFLOPs() (fwd, bwd float64) {
	for l := 0; l+1 < len(benchSizes); l++ {
		mac := float64(benchSizes[l] * benchSizes[l+1])
		fwd += 2 * mac
		bwd += 2 * mac
		if l > 0 {
			bwd += 2 * mac
		}
	}
	return fwd, bwd
}

// benchImpl is one implementation of a benchmarked operation: given a model
// and a batch, it returns the operation. f64 is nil when there is no float64
// version.
type benchImpl struct {
	name string
	f32  func(*testing.B, *nn.MLP[float32], *nn.Batch[float32]) func()
	f64  func(*testing.B, *nn.MLP[float64], *nn.Batch[float64]) func()
}

// benchRun runs the sub-benchmarks impl × dtype × batch of one operation;
// flops is per sample.
func benchRun(b *testing.B, flops float64, impls ...benchImpl) {
	for _, im := range impls {
		for _, dtype := range []string{"float32", "float64"} {
			if dtype == "float64" && im.f64 == nil {
				continue
			}
			for _, n := range benchBatches {
				b.Run(fmt.Sprintf("impl=%s/dtype=%s/batch=%d", im.name, dtype, n), func(b *testing.B) {
					var op func()
					if dtype == "float32" {
						op = im.f32(b, benchModel[float32](), benchBatch[float32](n))
					} else {
						op = im.f64(b, benchModel[float64](), benchBatch[float64](n))
					}
					op() // warm up: Gorgonia compiles its graph for this batch size
					b.ReportAllocs()
					for b.Loop() {
						op()
					}
					sps := float64(n) * float64(b.N) / b.Elapsed().Seconds()
					b.ReportMetric(sps, "samples/s")
					b.ReportMetric(sps*flops/1e9, "GFLOP/s")
					if dtype == "float32" && im.name != "gorgonia" {
						peak.Report(b, nn.KernelName[float32](), sps*flops/1e9)
					}
				})
			}
		}
	}
}

// BenchmarkStep is the full update step: loss, gradient and Adam.
func BenchmarkStep(b *testing.B) {
	fwd, bwd := benchFLOPs()
	benchRun(b, fwd+bwd,
		benchImpl{"kernel", kernelStep[float32], kernelStep[float64]},
		benchImpl{"stepper", stepperStep(true), nil},
		benchImpl{"stepper-full", stepperStep(false), nil},
		benchImpl{"gorgonia", gorgoniaStep[float32], gorgoniaStep[float64]})
}

// BenchmarkStepThreads is the kernels' step and Stepper.Step by thread
// count and batch, float32: threads is the workspace's (its row blocks and
// most goroutines; nn runs steps under 256 rows on one):
//
//	go test -run XXX -bench 'StepThreads' -count 6 . | benchstat -col /threads -
func BenchmarkStepThreads(b *testing.B) {
	fwd, bwd := benchFLOPs()
	for _, impl := range []string{"kernel", "stepper"} {
		for _, n := range []int{64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536} {
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("impl=%s/batch=%d/threads=%d", impl, n, th), func(b *testing.B) {
					mk := kernelStepThreads[float32](th)
					if impl == "stepper" {
						mk = stepperStepThreads(true, th)
					}
					op := mk(b, benchModel[float32](), benchBatch[float32](n))
					op()
					b.ReportAllocs()
					for b.Loop() {
						op()
					}
					sps := float64(n) * float64(b.N) / b.Elapsed().Seconds()
					b.ReportMetric(sps, "samples/s")
					b.ReportMetric(sps*(fwd+bwd)/1e9, "GFLOP/s")
					peak.Report(b, nn.KernelName[float32](), sps*(fwd+bwd)/1e9)
				})
			}
		}
	}
}

// BenchmarkPeak is the float32 multiply-add peak the step benchmarks'
// "%peak" divide by, by goroutines (internal/peak's probe on the
// instruction set of nn's kernels; best of its runs of 20 ms): two
// goroutines at twice one's rate say the vCPUs are two cores, at one's rate
// that they are one core's two threads.
func BenchmarkPeak(b *testing.B) {
	isa := nn.KernelName[float32]()
	for _, g := range []int{1, 2} {
		b.Run(fmt.Sprintf("isa=%s/goroutines=%d", isa, g), func(b *testing.B) {
			var f float64
			for b.Loop() {
				f = max(f, peak.FLOPs(isa, g, 1, 20*time.Millisecond))
			}
			if f == 0 {
				b.Skipf("no probe for %s on this build", isa)
			}
			b.ReportMetric(f/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkBackward is the loss and its gradient, without Adam (the kernels
// fuse the forward pass into the backward one: it is not separable).
func BenchmarkBackward(b *testing.B) {
	fwd, bwd := benchFLOPs()
	benchRun(b, fwd+bwd,
		benchImpl{"kernel", kernelGrad[float32], kernelGrad[float64]},
		benchImpl{"gorgonia", gorgoniaGrad[float32], gorgoniaGrad[float64]})
}

// BenchmarkForward is the logits of the batch.
func BenchmarkForward(b *testing.B) {
	fwd, _ := benchFLOPs()
	benchRun(b, fwd,
		benchImpl{"kernel", kernelForward[float32], kernelForward[float64]},
		benchImpl{"gorgonia", gorgoniaForward[float32], gorgoniaForward[float64]})
}

// BenchmarkAdvantages is SoftRankPO's advantages of one group of distinct
// rewards (design §3), in rewards per second; it does no matrix products, so
// it reports no GFLOP/s. (The pairwise sums grow as the square of the
// group: 65 536 distinct rewards took 34 s on the reference machine, so
// the largest group here is 16 384.)
func BenchmarkAdvantages(b *testing.B) {
	for _, n := range []int{256, 4096, 16384} {
		b.Run(fmt.Sprintf("group=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, uint64(n)))
			rewards := make([]float64, n)
			for i := range rewards {
				rewards[i] = rng.NormFloat64()
			}
			adv := make([]float64, n)
			b.ReportAllocs()
			for b.Loop() {
				if err := trainer.SoftRankTo(adv, rewards, trainer.DefaultTau); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

func kernelWorkspace[T nn.Float](b *testing.B, rows int) *nn.Workspace[T] {
	return kernelWorkspaceThreads[T](b, rows, 0)
}

func kernelWorkspaceThreads[T nn.Float](b *testing.B, rows, threads int) *nn.Workspace[T] {
	ws, err := nn.NewWorkspace[T](benchSizes, nn.Tanh, rows, threads)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ws.Close)
	return ws
}

func gorgoniaEngine[T nn.Float](b *testing.B) *autodiff.Engine[T] {
	e, err := autodiff.New[T](benchSizes, nn.Tanh, nn.DefaultLoss())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

func kernelStep[T nn.Float](b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
	return kernelStepThreads[T](0)(b, m, batch)
}

func kernelStepThreads[T nn.Float](threads int) func(*testing.B, *nn.MLP[T], *nn.Batch[T]) func() {
	return func(b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
		ws := kernelWorkspaceThreads[T](b, batch.Len(), threads)
		grad := make([]T, len(m.Params))
		opt := nn.NewAdam[T](nn.DefaultAdam(), len(m.Params))
		return func() {
			ws.LossAndGrad(grad, m, batch, nn.DefaultLoss())
			opt.UpdateFast(m.Params, grad, 1e-5)
		}
	}
}

// stepperStep returns impl=stepper's operation: Stepper.Step on the rows of
// batch, in groups of 16 rows with integer rewards, the learning rate of
// kernelStep. With given the samples carry the batch's behaviour (clamped
// to ≤ 0, as Samples requires) and reference log-probabilities, and the
// advantages of the Stepper's estimator.
func stepperStep(given bool) func(*testing.B, *nn.MLP[float32], *nn.Batch[float32]) func() {
	return stepperStepThreads(given, 0)
}

func stepperStepThreads(given bool, threads int) func(*testing.B, *nn.MLP[float32], *nn.Batch[float32]) func() {
	return func(b *testing.B, m *nn.MLP[float32], batch *nn.Batch[float32]) func() {
		backend, err := trainer.NewKernelBackend(m.Sizes, m.Act, nn.DefaultLoss(), threads)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(backend.Close)
		cfg := trainer.DefaultStepConfig()
		cfg.MaxGradNorm = 1
		st, err := trainer.NewStepper(backend, m, m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		n := batch.Len()
		rng := rand.New(rand.NewPCG(5, uint64(n)))
		s := &trainer.Samples{Features: batch.X, Actions: batch.Actions, Rewards: make([]float64, n), Groups: make([]string, n)}
		for i := range n {
			s.Rewards[i] = float64(rng.IntN(5) - 2)
			s.Groups[i] = fmt.Sprintf("task-%d", i/16)
		}
		if given {
			s.LogProb, s.RefLogProb, s.Adv = make([]float64, n), batch.RefLogp, make([]float64, n)
			for i, v := range batch.BehLogp {
				s.LogProb[i] = min(0, float64(v))
			}
			if err := trainer.GroupAdvantages(s.Adv, s.Rewards, s.Groups, cfg.Estimator); err != nil {
				b.Fatal(err)
			}
		}
		return func() {
			if _, err := st.Step(s, 1e-5); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func gorgoniaStep[T nn.Float](b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
	e := gorgoniaEngine[T](b)
	grad := make([]T, len(m.Params))
	opt := nn.NewAdam[T](nn.DefaultAdam(), len(m.Params))
	return func() {
		if _, err := e.LossAndGrad(grad, m, batch); err != nil {
			b.Fatal(err)
		}
		opt.Update(m.Params, grad, 1e-5)
	}
}

func kernelGrad[T nn.Float](b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
	ws := kernelWorkspace[T](b, batch.Len())
	grad := make([]T, len(m.Params))
	return func() { ws.LossAndGrad(grad, m, batch, nn.DefaultLoss()) }
}

func gorgoniaGrad[T nn.Float](b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
	e := gorgoniaEngine[T](b)
	grad := make([]T, len(m.Params))
	return func() {
		if _, err := e.LossAndGrad(grad, m, batch); err != nil {
			b.Fatal(err)
		}
	}
}

func kernelForward[T nn.Float](b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
	ws := kernelWorkspace[T](b, batch.Len())
	logits := make([]T, batch.Len()*nn.NumActions)
	return func() { ws.ForwardTo(logits, m, batch.X) }
}

func gorgoniaForward[T nn.Float](b *testing.B, m *nn.MLP[T], batch *nn.Batch[T]) func() {
	e := gorgoniaEngine[T](b)
	logits := make([]T, batch.Len()*nn.NumActions)
	return func() {
		if err := e.Forward(logits, m, batch.X); err != nil {
			b.Fatal(err)
		}
	}
}

func benchModel[T nn.Float]() *nn.MLP[T] {
	m, err := nn.NewMLP[T](benchSizes, nn.Tanh)
	if err != nil {
		panic(err)
	}
	m.Init(1)
	return m
}

// benchBatch returns n rows of normal features with behaviour
// log-probabilities near the policy's, so that most ratios are near 1.
func benchBatch[T nn.Float](n int) *nn.Batch[T] {
	return kernelBatch(rand.New(rand.NewPCG(3, uint64(n))), benchModel[T](), n)
}
