package metapolicy

import (
	"fmt"

	"github.com/mpdf/mpdf/nn"
)

// FeatureVersionPeers names the layout of FeaturizePeers, the input of the
// attention network (nn.Attention): FeatureVersion's 26 features of the
// agent itself, then one fixed-width slot per peer, so that a network can
// attend over the peers one by one instead of reading them pooled.
const FeatureVersionPeers = "mpdf-features/peers-v1"

// Shape of FeatureVersionPeers: PeerSlots slots of PeerWidth features after
// the FeatureWidth own features. Teams of more than PeerSlots+1 agents are
// refused: the layout has a fixed width so that rows batch like the others.
const (
	PeerSlots         = 7
	PeerWidth         = 12
	FeatureWidthPeers = FeatureWidth + PeerSlots*PeerWidth
	MaxPeersTeam      = PeerSlots + 1
)

// Features of one peer slot (offsets within the slot). Peer slot j holds
// agent (self+1+j) mod N; slots j ≥ N−1 are all zeros, PPresent among them.
const (
	PPresent         = iota // 1 for a slot that holds a peer
	PHasAnswer              // the peer's answer is readable
	PAgrees                 // readable and equal to own readable answer
	PHoldsTeam              // readable and equal to the team (plurality) answer
	PHoldsTarget            // readable and equal to own concede target
	PConf                   // introspective confidence, 0 when missing
	PConfMissing            // 1 when the introspective confidence is missing
	PSelfConf               // stated confidence, 0 when missing
	PSelfConfMissing        // 1 when the stated confidence is missing
	PTokens                 // log1p(tokens)/log(4096), as FTokens
	PSteps                  // log1p(steps)/log(64), as FSteps
	PHedges                 // log1p(hedges)/log(16), as FHedges
	numPeerFeatures
)

var _ = [1]struct{}{}[numPeerFeatures-PeerWidth] // PeerWidth matches the slot layout

// The attention network (nn.AttnIn, nn.AttnPeer, nn.AttnSlots) reads this layout.
var _ = [1][1][1][1]struct{}{}[FeatureWidthPeers-nn.AttnIn][PeerWidth-nn.AttnPeer][PeerSlots-nn.AttnSlots][FeatureWidth-nn.AttnSelf]

// FeaturizePeers writes the FeatureVersionPeers vector of obs into dst (len
// FeatureWidthPeers): Featurize's features first, then the peer slots.
// FeaturizeTeamPeers writes the same rows for every agent at once.
func FeaturizePeers(dst []float64, obs *Observation) error {
	if len(dst) != FeatureWidthPeers {
		return fmt.Errorf("metapolicy: %s vector of length %d, want %d", FeatureVersionPeers, len(dst), FeatureWidthPeers)
	}
	if err := checkPeersTeam(len(obs.Agents)); err != nil {
		return err
	}
	if err := Featurize(dst[:FeatureWidth], obs); err != nil {
		return err
	}
	n := len(obs.Agents)
	answers, conf := make([]string, n), make([]float64, n)
	for i, a := range obs.Agents {
		answers[i], conf[i] = a.Answer, a.Confidence
	}
	peerSlots(dst, obs, obs.Self, TeamAnswer(answers, conf, -1), ConcedeTarget(answers, conf, obs.Self))
	return nil
}

// FeaturizeTeamPeers is FeaturizeTeam for FeatureVersionPeers: row i of dst
// (len(obs.Agents)·FeatureWidthPeers values) is, bit for bit, what
// FeaturizePeers gives with obs.Self = i; targets[i] is ConcedeTarget for
// agent i, and it returns the team answer. obs.Self is ignored.
func FeaturizeTeamPeers(dst []float64, targets []string, obs *Observation) (string, error) {
	if err := checkPeersTeam(len(obs.Agents)); err != nil {
		return "", err
	}
	if err := checkTeam(dst, targets, obs, FeatureWidthPeers, FeatureVersionPeers+" "); err != nil {
		return "", err
	}
	n := len(obs.Agents)
	var ansBuf [MaxPeersTeam]string
	var confBuf, tokBuf, stepBuf [MaxPeersTeam]float64
	var allBuf, peerBuf [MaxPeersTeam]tally
	d, team := deliberationOf(obs, ansBuf[:n], confBuf[:n], tokBuf[:n], stepBuf[:n], allBuf[:0])
	for s := range n {
		row := dst[s*FeatureWidthPeers : (s+1)*FeatureWidthPeers : (s+1)*FeatureWidthPeers]
		clear(row)
		targets[s] = concedeOf(appendTallies(peerBuf[:0], d.answers, d.conf, s))
		d.row(row[:FeatureWidth:FeatureWidth], s, team, targets[s])
		peerSlots(row, obs, s, team, targets[s])
	}
	return team, nil
}

func checkPeersTeam(n int) error {
	if n > MaxPeersTeam {
		return fmt.Errorf("metapolicy: %s holds at most %d agents, the team has %d", FeatureVersionPeers, MaxPeersTeam, n)
	}
	return nil
}

// peerSlots writes agent s's peer slots into row[FeatureWidth:], given the
// team answer and s's concede target; it clears the slots first.
func peerSlots(row []float64, obs *Observation, s int, team, target string) {
	clear(row[FeatureWidth:])
	n := len(obs.Agents)
	own := obs.Agents[s].Answer
	for j := 0; j < n-1; j++ {
		a := obs.Agents[(s+1+j)%n]
		p := row[FeatureWidth+j*PeerWidth : FeatureWidth+(j+1)*PeerWidth]
		ok := a.Answer != ""
		p[PPresent] = 1
		p[PHasAnswer] = flag(ok)
		p[PAgrees] = flag(ok && own != "" && a.Answer == own)
		p[PHoldsTeam] = flag(ok && a.Answer == team)
		p[PHoldsTarget] = flag(ok && a.Answer == target)
		p[PConf] = orZero(a.Confidence)
		p[PConfMissing] = flag(!Known(a.Confidence))
		p[PSelfConf] = orZero(a.Profile.SelfConfidence)
		p[PSelfConfMissing] = flag(!Known(a.Profile.SelfConfidence))
		p[PTokens] = squash(a.Profile.Tokens, 4096)
		p[PSteps] = squash(a.Profile.Steps, 64)
		p[PHedges] = squash(a.Profile.Hedges, 16)
	}
}
