package answer

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// adversarial are text shapes that once cost more than linear time or
// memory to read (issue 20), or could: each gives a text of about n
// bytes.
var adversarial = []struct {
	name string
	text func(n int) string
}{
	{"boxed-open", rep(`\boxed{`)},
	{"boxed-nested", func(n int) string {
		k := n / 8
		return strings.Repeat(`\boxed{`, k) + "12" + strings.Repeat("}", k)
	}},
	{"fbox-spaces", rep(`\fbox  {`)},
	{"braces", func(n int) string { return `\boxed{` + strings.Repeat("{", n/2) + strings.Repeat("}", n/2) }},
	{"digits", rep("7")},
	{"digits-boxed", func(n int) string { return `\boxed{` + strings.Repeat("7", n) + "}" }},
	{"one-equals", rep("1=")},
	{"sum-chain", rep("1+")},
	{"quotient-chain", rep("7/")},
	{"open-parens", func(n int) string { return strings.Repeat("(", n/4) + strings.Repeat("1+", n/4) }},
	{"paren-sums", rep("(1+2 ")},
	{"thousands", rep("1,000 ")},
	{"groups", rep("1 000 ")},
	{"frac", rep(`\frac{1}{2}`)},
	{"frac-open", rep(`\frac{`)},
	{"answer-is", rep("The answer is ")},
	{"answer-is-lines", rep("The answer is 3\n")},
	{"is-dollar", rep("is $1$ ")},
	{"mmlu-paren", rep("(A)")},
	{"mmlu-answer", rep("answer: **B** ")},
	{"mmlu-placeholder", rep("(X) ")},
	{"mmlu-bare-x", rep(" X) A")},
	{"option-refs", rep("option A or B. ")},
	{"sentences", rep("The correct answer. ")},
	{"long-word", rep("a")},
	{"spaces", rep(" ")},
	{"newlines", rep("\n")},
	{"hedges", rep("maybe ")},
	{"confidence", rep("Confidence: 0.5\n")},
	{"think-open", rep("<think>")},
	{"think-close", rep("</think>")},
	{"latex-commands", rep(`\times`)},
	{"text-units", rep(`\text{apples}`)},
	{"dollars", rep("$5 + $7 = $12 ")},
	{"percent", rep("20% of 50 = 10 ")},
	{"unicode", rep("−×÷é")},
}

// rep repeats unit to about n bytes.
func rep(unit string) func(int) string {
	return func(n int) string { return strings.Repeat(unit, max(1, n/len(unit))) }
}

func readAll(text string) {
	for _, k := range Kinds {
		Read(k, text, Options{Critic: true, Question: "Which? : A) one, B) two, C) three, D) four"})
	}
}

// workOf is the meter's count for reading text by every kind.
func workOf(text string) int {
	var n int
	workMeter = &n
	defer func() { workMeter = nil }()
	readAll(text)
	return n
}

// Work bounds: per byte of text, and a constant for the boxes (each of the
// last MaxBoxes read up to MaxBoxBytes, several passes each) — over the
// four kinds.
const (
	workPerByte = 4 * 64
	workConst   = 4 * 32 * MaxBoxes * MaxBoxBytes
)

// TestReadWorkLinear holds the reading of every adversarial shape to
// linear work, counted (not timed): below the caps, at them and far past
// them.
func TestReadWorkLinear(t *testing.T) {
	for _, a := range adversarial {
		for _, n := range []int{1 << 10, 16 << 10, 256 << 10} { // below, near and past the caps
			text := a.text(n)
			if w := workOf(text); w > workPerByte*len(text)+workConst {
				t.Errorf("%s, %d bytes: work %d > %d·len + %d", a.name, len(text), w, workPerByte, workConst)
			}
		}
	}
}

// TestReadWorkScales checks that doubling a shape below the caps at most
// about doubles the counted work.
func TestReadWorkScales(t *testing.T) {
	for _, a := range adversarial {
		w1, w4 := workOf(a.text(8<<10)), workOf(a.text(32<<10))
		if r := math.Sqrt(float64(w4) / float64(w1)); r > 2.2 {
			t.Errorf("%s: work grows %.2f× per doubling (%d → %d)", a.name, r, w1, w4)
		}
	}
}

// TestReadAllocBounded: the text critic on 1 MB of "1=" took ~120 MB per
// read (issue 20); now it is bounded by MaxCriticBytes.
func TestReadAllocBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts as allocation")
	}
	text := strings.Repeat("1=", 520_000)
	Read(GSM8K, text, Options{Critic: true})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const reads = 4
	for range reads {
		Read(GSM8K, text, Options{Critic: true})
	}
	runtime.ReadMemStats(&after)
	per := int(after.TotalAlloc-before.TotalAlloc) / reads
	if limit := len(text)/8 + allocConst; per > limit {
		t.Errorf("%d bytes allocated per read of %d bytes of \"1=\", want ≤ len/8 + %d = %d", per, len(text), allocConst, limit)
	}
	t.Logf("%d bytes allocated per read of %d bytes", per, len(text))
}

// allocConst is what a read may allocate beyond a share of the text: the
// critic's tokens over its MaxCriticBytes window (32 bytes a byte) and
// the values of the numbers it computes with (one every two bytes here).
const allocConst = 96 * MaxCriticBytes

// BenchmarkReadAdversarial reads each adversarial shape by every kind at
// ×1, ×2 and ×4 its base size (below the caps, where linearity is what
// bounds the time) and reports the time per doubling, √(t×4/t×1): linear
// is 2, the target ≤ 2.2. "past-cap" is a 1 MiB text of the shape.
func BenchmarkReadAdversarial(b *testing.B) {
	const base = 8 << 10
	for _, a := range adversarial {
		texts := []string{a.text(base), a.text(2 * base), a.text(4 * base), a.text(1 << 20)}
		b.Run(a.name, func(b *testing.B) {
			var d [4]time.Duration
			for range b.N {
				for i, text := range texts {
					t0 := time.Now()
					readAll(text)
					d[i] += time.Since(t0)
				}
			}
			per := func(i int) float64 { return float64(d[i].Nanoseconds()) / float64(b.N) }
			b.ReportMetric(per(0), "ns/x1")
			b.ReportMetric(per(2), "ns/x4")
			b.ReportMetric(per(3), "ns/1MiB")
			b.ReportMetric(math.Sqrt(per(2)/per(0)), "ratio/doubling")
		})
	}
}

func ExampleRead_bounded() {
	text := strings.Repeat(`\boxed{`, 10_000) + "42"
	fmt.Println(Read(GSM8K, text, Options{}).Answer)
	// Output: 42
}
