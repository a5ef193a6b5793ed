package metapolicy

import "fmt"

// featureNames names the features of FeatureVersion's layout (features.go)
// for tables such as the simulator's signal report.
var featureNames = map[int]string{
	FHasAnswer: "has_answer", FOwnShare: "own_share", FOwnIsTeam: "own_is_team", FDistinct: "distinct",
	FSteps: "steps", FTokens: "tokens", FHedges: "hedges", FSelfConf: "self_conf",
	FSelfConfMissing: "self_conf_missing", FConf: "conf", FConfMissing: "conf_missing",
	FPeerConfMean: "peer_conf_mean", FPeerConfMax: "peer_conf_max", FPeerConfMin: "peer_conf_min",
	FPeerConfMissing: "peer_conf_missing", FPeerAgree: "peer_agree", FPeerAgreeConf: "peer_agree_conf",
	FTargetShare: "target_share", FTargetConf: "target_conf", FTargetIsOwn: "target_is_own",
	FPeerTokens: "peer_tokens", FPeerSteps: "peer_steps", FPeerNoAnswer: "peer_no_answer",
	FRound: "round", FLastRound: "last_round", FTeamSize: "team_size",
}

// FeatureName returns the name of feature i of the layout, or "f<i>" for
// an index without one.
func FeatureName(i int) string {
	if n, ok := featureNames[i]; ok {
		return n
	}
	return fmt.Sprintf("f%d", i)
}
