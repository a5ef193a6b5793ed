package trainer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Reward noise (Config.RewardNoise) models heavy-tailed rewards for the
// stability study (issue 32; design §3): each online decision's reward
// gets an additive draw s·T_ν, T_ν Student-t with ν degrees of freedom,
// before the estimator sees it. ν = 1 is Cauchy (no mean); ν = 2 has a
// mean but no variance; as ν grows it tends to Gaussian noise of std s.
// The draws come from a stream seeded by (Config.Seed, iteration), in
// the rollout's row order, so a run's noise is the same whether or not
// it was resumed, and different training seeds see different noise.
const (
	// NoisePrefix starts "student-t:NU:S": NU an integer in
	// [1, MaxNoiseDF], S a finite scale > 0.
	NoisePrefix = "student-t:"
	// MaxNoiseDF bounds ν: the draw sums ν squared normals.
	MaxNoiseDF = 100
)

// RewardNoise is a parsed Config.RewardNoise: s·T_ν.
type RewardNoise struct {
	DF    int
	Scale float64
}

// ParseRewardNoise parses "" (no noise: nil) or "student-t:NU:S".
func ParseRewardNoise(spec string) (*RewardNoise, error) {
	if spec == "" {
		return nil, nil
	}
	bad := fmt.Errorf("trainer: reward noise %q, want student-t:NU:S (NU an integer in [1, %d], S a finite number > 0)", spec, MaxNoiseDF)
	rest, ok := strings.CutPrefix(spec, NoisePrefix)
	if !ok {
		return nil, bad
	}
	nu, s, ok := strings.Cut(rest, ":")
	if !ok {
		return nil, bad
	}
	df, err := strconv.Atoi(nu)
	if err != nil || df < 1 || df > MaxNoiseDF {
		return nil, bad
	}
	scale, err := strconv.ParseFloat(s, 64)
	if err != nil || !(scale > 0) || math.IsInf(scale, 0) {
		return nil, bad
	}
	return &RewardNoise{DF: df, Scale: scale}, nil
}

// noiseStream is the PCG stream of the reward noise ("noise").
const noiseStream = 0x6e6f697365

// Add adds a draw to each reward, from the stream of (seed, iter).
func (n *RewardNoise) Add(rewards []float64, seed uint64, iter int) {
	rng := rand.New(rand.NewPCG(seed^noiseStream, uint64(iter)))
	for i := range rewards {
		rewards[i] += n.Scale * n.draw(rng)
	}
}

// draw is one Student-t variate: Z / sqrt(χ²_ν / ν), χ²_ν the sum of ν
// squared standard normals.
func (n *RewardNoise) draw(rng *rand.Rand) float64 {
	z := rng.NormFloat64()
	chi := 0.0
	for range n.DF {
		g := rng.NormFloat64()
		chi += g * g
	}
	if chi == 0 { // probability 0; a Cauchy draw stays finite
		chi = math.SmallestNonzeroFloat64
	}
	t := z / math.Sqrt(chi/float64(n.DF))
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return math.Copysign(math.MaxFloat64/4, z)
	}
	return t
}
