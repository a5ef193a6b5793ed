// Package metapolicy defines what a deliberating agent decides and what it
// sees: the three meta-actions of design §1 ([Persist], [Refine],
// [Concede]), the meta-cognitive state of an agent and its peers
// ([Observation]), the consensus rules ([TeamAnswer], [ConcedeTarget]), the
// versioned featurizer ([Featurize], [FeatureVersion]), and the [Policy]
// interface that learned and heuristic policies share.
//
// # Use
//
// A Policy maps an Observation to a distribution over the three actions;
// [Sample] draws from it and [Greedy] takes its mode:
//
//	p, err := metapolicy.ParseHeuristic("threshold:0.9:0.3") // or NewMLPPolicy(name, net)
//	a, logp, err := metapolicy.Greedy(p, &metapolicy.Observation{Self: 0, Round: 1, Rounds: 3, Agents: agents})
//
// [HeuristicNames] lists the fixed protocols (majority, debate, gate, ...)
// that a learned policy is judged against; [NewHeuristic] and
// [ParseHeuristic] build them. [MLPPolicy] runs a trained network on the
// default features, [FeaturizedPolicy] on another layout
// ([FeaturizerFor]).
//
// # Decisions made where design §1–§5 are silent
//
//   - An agent with no readable answer (Answer == "") casts no vote and is
//     never a concede target; a team with no votes has answer "" (wrong).
//   - Missing confidence counts as 0 in summed confidence for tie-breaks.
//   - Features are documented in features.go; the layout is named by
//     FeatureVersion, which travels in every checkpoint.
package metapolicy
