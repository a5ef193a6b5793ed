package metapolicy

// FeaturizeTeamV2 is FeaturizeTeam for FeatureVersionV2: row i of dst
// (len(obs.Agents)·FeatureWidthV2 values) is, bit for bit, what FeaturizeV2
// gives with obs.Self = i, targets[i] is ConcedeTarget for agent i, and it
// returns the team answer. obs.Self is ignored.
//
// The vote counts of every round it reads, the team answers and each
// agent's squashed profile are worked out once per deliberation, and
// nothing is allocated for teams of up to 16 agents.
func FeaturizeTeamV2(dst []float64, targets []string, obs *Observation) (team string, err error) {
	if err := checkTeam(dst, targets, obs, FeatureWidthV2, FeatureVersionV2+" "); err != nil {
		return "", err
	}
	n := len(obs.Agents)
	var ansBuf [16]string
	var confBuf, tokBuf, stepBuf, hedgeBuf [16]float64
	var allBuf, peerBuf, nowBuf, beforeBuf [16]tally
	answers, conf, tokens, steps, hedges := ansBuf[:0], confBuf[:0], tokBuf[:0], stepBuf[:0], hedgeBuf[:0]
	if n > len(ansBuf) {
		answers, conf, tokens, steps, hedges = make([]string, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	}
	d, team := deliberationOf(obs, answers[:n], conf[:n], tokens[:n], steps[:n], allBuf[:0])
	h := pastOf(obs, d.answers, hedges[:n], nowBuf[:0], beforeBuf[:0])
	for s := range n {
		row := dst[s*FeatureWidthV2 : (s+1)*FeatureWidthV2 : (s+1)*FeatureWidthV2]
		clear(row[:FeatureWidth])
		targets[s] = concedeOf(appendTallies(peerBuf[:0], d.answers, d.conf, s))
		d.row(row[:FeatureWidth:FeatureWidth], s, team, targets[s])
		h.row(row, s)
	}
	return team, nil
}
