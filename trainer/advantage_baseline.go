package trainer

import "math"

// The baseline estimators of design §3, kept for ablations. Each works on one
// group; std is the population standard deviation.

// GRPO is (r − mean)/max(std, 1e-3).
type GRPO struct{}

// DrGRPO is r − mean (Dr. GRPO drops the std division).
type DrGRPO struct{}

// RLOO is r_i − mean_{j≠i} r_j, the leave-one-out baseline; 0 for a group of one.
type RLOO struct{}

// Reinforce is r, no baseline.
type Reinforce struct{}

// grpoMinStd keeps GRPO finite on groups whose rewards (nearly) tie.
const grpoMinStd = 1e-3

func (GRPO) Name() string      { return GRPOName }
func (DrGRPO) Name() string    { return DrGRPOName }
func (RLOO) Name() string      { return RLOOName }
func (Reinforce) Name() string { return ReinforceName }

func (GRPO) Advantages(dst, r []float64) error {
	if err := checkGroup(GRPOName, dst, r); err != nil {
		return err
	}
	// On x = r/2^e, so that no difference or square overflows; the ratio
	// is the same.
	mu, sd, e := scaledMeanStd(r)
	d := max(sd, math.Ldexp(grpoMinStd, -e))
	for i, v := range r {
		dst[i] = (math.Ldexp(v, -e) - mu) / d
	}
	return checkOut(GRPOName, dst)
}

func (DrGRPO) Advantages(dst, r []float64) error {
	if err := checkGroup(DrGRPOName, dst, r); err != nil {
		return err
	}
	mu := mean(r)
	for i, v := range r {
		dst[i] = v - mu
	}
	return checkOut(DrGRPOName, dst)
}

func (RLOO) Advantages(dst, r []float64) error {
	if err := checkGroup(RLOOName, dst, r); err != nil {
		return err
	}
	n := len(r)
	if n == 1 {
		dst[0] = 0
		return nil
	}
	// r_i − (Σr − r_i)/(n−1) = n/(n−1)·(r_i − mean): subtracting the mean
	// first avoids cancelling two large sums.
	mu := mean(r)
	k := float64(n) / float64(n-1)
	for i, v := range r {
		dst[i] = k * (v - mu)
	}
	return checkOut(RLOOName, dst)
}

func (Reinforce) Advantages(dst, r []float64) error {
	if err := checkGroup(ReinforceName, dst, r); err != nil {
		return err
	}
	copy(dst, r)
	return nil
}

// mean is Σr/n, or Σ(r/n) when the sum overflows.
func mean(r []float64) float64 {
	n := float64(len(r))
	s := 0.0
	for _, v := range r {
		s += v
	}
	if !math.IsInf(s, 0) {
		return s / n
	}
	s = 0
	for _, v := range r {
		s += v / n
	}
	return s
}

// meanStd returns the mean and the population standard deviation (two
// passes), computed without overflow.
func meanStd(r []float64) (mu, sd float64) {
	mu, sd, e := scaledMeanStd(r)
	return math.Ldexp(mu, e), math.Ldexp(sd, e)
}

// scaledMeanStd returns the mean and population std of x = r/2^e, with e
// chosen so that max|x| < 1; scaling by a power of two is exact, so the bits
// are those of the plain formula wherever that one does not overflow.
func scaledMeanStd(r []float64) (mu, sd float64, e int) {
	amax := 0.0
	for _, v := range r {
		amax = max(amax, math.Abs(v))
	}
	return scaledMeanStdMax(r, amax)
}

// scaledMeanStdMax is scaledMeanStd given amax, the largest |r|.
func scaledMeanStdMax(r []float64, amax float64) (mu, sd float64, e int) {
	if amax == 0 {
		return 0, 0, 0
	}
	_, e = math.Frexp(amax)
	// v·2^−e rounded once is what Ldexp returns; when 2^−e is a float64
	// (e ≥ −1023, unless every |r| is below 2^−1024) one multiplication
	// computes it, 5× faster than the call (a Stepper's metrics take the
	// std of every group at every step).
	f, exact := math.Ldexp(1, -e), e >= -1023
	for _, v := range r {
		x := v * f
		if !exact {
			x = math.Ldexp(v, -e)
		}
		mu += x
	}
	mu /= float64(len(r))
	ss := 0.0
	for _, v := range r {
		x := v * f
		if !exact {
			x = math.Ldexp(v, -e)
		}
		d := x - mu
		ss += d * d
	}
	return mu, math.Sqrt(ss / float64(len(r))), e
}
