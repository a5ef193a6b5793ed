// Package metapolicy defines what a deliberating agent decides and what it
// sees: the three meta-actions of design §1, the meta-cognitive state of an
// agent and its peers, the consensus rules (team answer, concede target),
// the versioned featurizer, and the Policy interface that learned and
// heuristic policies share.
//
// # Decisions made where design §1–§5 are silent
//
//   - An agent with no readable answer (Answer == "") casts no vote and is
//     never a concede target; a team with no votes has answer "" (wrong).
//   - Missing confidence counts as 0 in summed confidence for tie-breaks.
//   - Features are documented in features.go; the layout is named by
//     FeatureVersion, which travels in every checkpoint.
package metapolicy
