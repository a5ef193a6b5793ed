package peak

import (
	"runtime"
	"testing"
	"time"

	"github.com/mpdf/mpdf/nn"
)

// TestFLOPs checks that the probe runs and counts: a positive rate for the
// kernels' instruction set (when it has a probe), none for the portable one.
func TestFLOPs(t *testing.T) {
	if f := FLOPs("go", 1, 1, time.Millisecond); f != 0 {
		t.Errorf(`FLOPs("go") = %g, want 0`, f)
	}
	isa := nn.KernelName[float32]()
	if probe(isa) == nil {
		t.Skipf("no probe for %s on this build", isa)
	}
	if f := FLOPs(isa, 2, 2, time.Millisecond); !(f > 0) {
		t.Errorf("FLOPs(%q, 2 goroutines) = %g, want > 0", isa, f)
	}
	if got, want := probe(isa)(3), 3*12*2*map[string]int{"avx512": 16, "avx2": 8}[isa]; got != want {
		t.Errorf("%s probe of 3 iterations reports %d FLOPs, want %d", isa, got, want)
	}
}

// TestMeasureKeepsGOMAXPROCS: Measure probes the machine's CPUs when a
// benchmark's -cpu lowered GOMAXPROCS, and gives the benchmark its setting
// back.
func TestMeasureKeepsGOMAXPROCS(t *testing.T) {
	isa := nn.KernelName[float32]()
	if probe(isa) == nil {
		t.Skipf("no probe for %s on this build", isa)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p := Measure(isa)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS after Measure = %d, want 1", got)
	}
	if !(p.One > 0) || p.Machine < p.One {
		t.Errorf("Measure = %+v, want One > 0 and Machine ≥ One", p)
	}
}
