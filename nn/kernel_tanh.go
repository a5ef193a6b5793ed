package nn

// tanh32 is tanh in float32 by a [13/6] rational approximation on the
// clamped input (Eigen's fast tanh): within 4e-7 of math.Tanh everywhere, odd,
// monotone, and |tanh32(x)| < 1. The vector kernels evaluate the same
// polynomial, so float32 gives the same activations in every build up to
// the order of the multiply-adds.
func tanh32(x float32) float32 {
	// Compares rather than min and max, which spend a dozen instructions
	// on NaN and signed-zero cases that these branches already get right
	// (a NaN compares false and passes through).
	if x > tanhClamp {
		x = tanhClamp
	} else if x < -tanhClamp {
		x = -tanhClamp
	}
	x2 := x * x
	p := float32(tanhP13)
	p = p*x2 + tanhP11
	p = p*x2 + tanhP9
	p = p*x2 + tanhP7
	p = p*x2 + tanhP5
	p = p*x2 + tanhP3
	p = p*x2 + tanhP1
	q := float32(tanhQ6)
	q = q*x2 + tanhQ4
	q = q*x2 + tanhQ2
	q = q*x2 + tanhQ0
	return x * p / q
}

// Coefficients of tanh32: tanh(x) ≈ x·P(x²)/Q(x²) on [−tanhClamp, tanhClamp].
const (
	tanhClamp = 7.99881172180175781

	tanhP1  = 4.89352455891786e-03
	tanhP3  = 6.37261928875436e-04
	tanhP5  = 1.48572235717979e-05
	tanhP7  = 5.12229709037114e-08
	tanhP9  = -8.60467152213735e-11
	tanhP11 = 2.00018790482477e-13
	tanhP13 = -2.76076847742355e-16

	tanhQ0 = 4.89352518554385e-03
	tanhQ2 = 2.26843463243900e-03
	tanhQ4 = 1.18534705686654e-04
	tanhQ6 = 1.19825839466702e-06
)
