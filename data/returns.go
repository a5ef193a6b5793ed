package data

// Returns replaces, in place, the per-round rewards of one episode
// (rewards[t][i], agent i's reward in round t ≥ 1, as Rewards returns
// them; rewards[0] is nil) with each agent's discounted return-to-go:
//
//	G_i^t = Σ_{k≥t} γ^{k−t} r_i^k = r_i^t + γ·G_i^{t+1}
//
// so that a decision whose effect shows a round later (a refine that makes
// a concede right) is credited with it (design §2, credit across rounds).
// γ = 0 leaves the rewards untouched, bit for bit: the round's own reward
// is today's default. The sum runs over the episode's own rounds: an
// episode is whole wherever it is read (Decisions takes one at a time), so
// the return never needs another record.
func Returns(rewards [][]float64, gamma float64) {
	if gamma == 0 {
		return
	}
	for t := len(rewards) - 2; t >= 1; t-- {
		next := rewards[t+1]
		for i := range rewards[t] {
			if i < len(next) {
				rewards[t][i] += gamma * next[i]
			}
		}
	}
}
