package checkpoints

import (
	"encoding/json"

	"github.com/mpdf/mpdf/nn"
)

// Checkpoint is everything a run needs to continue exactly where it stopped.
type Checkpoint struct {
	Header Header
	// Policy is the network being trained. Required.
	Policy *nn.MLP[float32]
	// Reference is the frozen KL reference policy (design §4); nil when there
	// is none. It has the policy's sizes and activation.
	Reference *nn.MLP[float32]
	// Adam is the optimiser state; nil when the file holds weights only
	// (e.g. a supervised export). Its moments have the policy's length.
	Adam *nn.Adam[float32]
	// NetKeys and Nets are the networks of a decoupled policy (design §4:
	// one per agent slot or model; networks.go), nil for one shared
	// network. NetKeys[k] names Nets[k]; Policy is Nets[0]; all have the
	// policy's shape; the Reference, required then, is every network's
	// start and the fallback. Adam's moments cover every network, in order.
	NetKeys []string
	Nets    []*nn.MLP[float32]
	// RNG is the state of the run's random source, opaque here (for
	// instance the MarshalBinary of a math/rand/v2 PCG); nil when none.
	RNG []byte
}

// Header holds the run's metadata. It is stored as JSON; the encoding is
// deterministic (struct field order, map keys sorted by encoding/json).
type Header struct {
	// FeatureVersion is the feature-schema version the policy was trained
	// on (metapolicy.FeatureVersion at the time). Required.
	FeatureVersion string `json:"feature_version"`
	// Step is the number of optimiser steps taken, ≥ 0.
	Step int64 `json:"step"`
	// Seed is the run's seed.
	Seed uint64 `json:"seed"`
	// Metrics are the latest metric values by name (design §4 names); all
	// finite. Manager uses one of them to keep the best checkpoint.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Train is the resolved training configuration, opaque here. It must be
	// valid JSON; it is stored compacted.
	Train json.RawMessage `json:"train,omitempty"`
	// DataPos is where the data reader stands (epoch, shard, offset, ...),
	// opaque here; valid JSON, stored compacted.
	DataPos json.RawMessage `json:"data_pos,omitempty"`
	// Run names the run the checkpoint belongs to, fixed when the run
	// started (trainer/run derives it from what defines the run, so that
	// the same seed and data give the same bytes). A Manager with Run set
	// acts only on its run's checkpoints (see Manager.Run and CheckRun).
	// Empty in checkpoints of builds before run ids.
	Run string `json:"run,omitempty"`
	// ConfigSHA256 is the hex SHA-256 of the configuration the checkpoint
	// was trained with (Train as stored), for comparing runs without
	// parsing it. Empty in checkpoints of older builds.
	ConfigSHA256 string `json:"config_sha256,omitempty"`
}
