package trainer

import "math"

// satCut is the |d| beyond which σ(d) is taken as exactly 0 or 1: σ(−50) <
// 2e-22, so even 10⁴ such terms stay below half an ulp of s ≥ 1/2.
const satCut = 50

// sumScratch holds the buffers of softRankSums.
type sumScratch struct {
	ep, em []float64 // exp(±(u − anchor)/h) within a block
	carry  []float64 // saturated contributions, as a difference array
}

// softRankSumsRef is the plain loop that softRankSums computes: for distinct
// ascending values u with multiplicities m and bandwidth h = τc,
//
//	s_k = 1/2 + (m_k − 1)/2 + Σ_{l≠k} m_l σ((u_k − u_l)/h)
//
// which is design §3's s_i for every reward equal to u_k (a tie adds σ(0) = 1/2).
func softRankSumsRef(s, u, m []float64, h float64) {
	for k := range u {
		acc := 0.5 + (m[k]-1)/2
		for l := range u {
			if l != k {
				acc += m[l] * sigmoid((u[k]-u[l])/h)
			}
		}
		s[k] = acc
	}
}

// sigmoid is the logistic function, computed without overflow on either side.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softRankSums computes softRankSumsRef's s with three savings:
//   - each pair is visited once, as σ(−d) = 1 − σ(d);
//   - pairs farther apart than satCut·h saturate (0 or 1), added through a
//     difference array instead of one by one;
//   - within a block of values spanning at most satCut·h, exp((u_j − u_i)/h)
//     is the product of exp((u_j − a)/h) and exp((a − u_i)/h) for the block's
//     lowest value a, so the inner loop has a multiply and a divide and no exp.
//
// Both exponents lie in [0, satCut], so the product cannot overflow and its
// relative error stays within about 2·satCut ulps.
func softRankSums(s, u, m []float64, h float64, sc *sumScratch) {
	k := len(u)
	sc.ep, sc.em, sc.carry = grow(sc.ep, k), grow(sc.em, k), grow(sc.carry, k)
	ep, em, carry := sc.ep, sc.em, sc.carry
	for i := range k {
		s[i] = 0.5 + (m[i]-1)/2
		carry[i] = 0
	}
	w := 0 // first value saturated against u_i; non-decreasing in i
	for bs := 0; bs < k; {
		a := u[bs]
		be := bs + 1
		for be < k && (u[be]-a)/h <= satCut {
			be++
		}
		for i := bs; i < be; i++ {
			z := (u[i] - a) / h
			ep[i], em[i] = math.Exp(z), math.Exp(-z)
		}
		for i := bs; i < be; i++ {
			mi, emi := m[i], em[i]
			si := 0.0
			// Same block: r = σ((u_i − u_j)/h) = 1/(1 + exp((u_j − u_i)/h)).
			for j := i + 1; j < be; j++ {
				r := 1 / (1 + ep[j]*emi)
				si += m[j] * r
				s[j] += mi - mi*r
			}
			// Later blocks, not yet saturated: e = exp(d) with d ≤ 0.
			w = max(w, be)
			for w < k && (u[w]-u[i])/h <= satCut {
				w++
			}
			for j := be; j < w; j++ {
				e := math.Exp((u[i] - u[j]) / h)
				r := 1 / (1 + e)
				si += m[j] * (e * r)
				s[j] += mi * r
			}
			// Saturated: every u_j from w on gains m_i·σ(≥ satCut) = m_i.
			if w < k {
				carry[w] += mi
			}
			s[i] += si
		}
		bs = be
	}
	run := 0.0
	for j := range k {
		run += carry[j]
		s[j] += run
	}
}
