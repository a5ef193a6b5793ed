package run

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/checkpoints"
)

// Metadata keys of a run's policy.safetensors beyond those every export
// carries (activation, feature_version, mpdf.confidence_source). MetaStep
// and MetaWeights are mpdf export's keys too.
const (
	MetaStep    = checkpoints.MetaStep    // the checkpoint's step
	MetaWeights = checkpoints.MetaWeights // "policy" (export --reference writes "reference")
	// MetaCheckpoint names the checkpoint file the weights are those of:
	// best.mpdf, or the latest ckpt-*.mpdf of a run that has no best yet
	// (no checkpoint carried the best metric, e.g. no RL iteration).
	MetaCheckpoint = "mpdf.checkpoint"
	// MetaCheckpointSHA256 is the SHA-256 (hex) of that file's bytes: a
	// reader holding both files checks that they are one policy.
	MetaCheckpointSHA256 = "mpdf.checkpoint_sha256"
	// MetaHidden is the hidden layer widths, comma-separated ("32,32"):
	// with the activation, what it takes to build the network.
	MetaHidden = "mpdf.hidden"
)

// The rule: policy.safetensors holds exactly best.mpdf's weights, so that
// the file a PyTorch user loads is the policy mpdf serve --policy
// best.mpdf serves. It is rewritten whenever best.mpdf is (the Manager's
// OnBest, from the very bytes written), each file atomically. A crash
// between the two writes leaves the previous best's weights, whose
// recorded SHA-256 no longer matches best.mpdf: a resume, and the end of
// every run, compare the two and rewrite (syncWeights).

// weightsMeta is the metadata of the export of checkpoint c, stored in
// the file name whose bytes are data.
func weightsMeta(name string, c *checkpoints.Checkpoint, data []byte) map[string]string {
	sum := sha256.Sum256(data)
	sizes := c.Policy.Sizes
	hidden := make([]string, 0, len(sizes))
	for _, s := range sizes[1 : len(sizes)-1] {
		hidden = append(hidden, strconv.Itoa(s))
	}
	return map[string]string{
		checkpoints.MetaActivation:       c.Policy.Act.String(),
		checkpoints.MetaFeatureVersion:   c.Header.FeatureVersion,
		checkpoints.MetaConfidenceSource: checkpoints.ConfidenceSource(&c.Header),
		MetaStep:                         strconv.FormatInt(c.Header.Step, 10),
		MetaWeights:                      "policy",
		MetaCheckpoint:                   name,
		MetaCheckpointSHA256:             hex.EncodeToString(sum[:]),
		MetaHidden:                       strings.Join(hidden, ","),
	}
}

// writeWeights writes dir's policy.safetensors from checkpoint c, held in
// the file name (in dir) as the bytes data.
func writeWeights(dir, name string, c *checkpoints.Checkpoint, data []byte) error {
	nets, err := c.Networks()
	if err != nil {
		return fmt.Errorf("run: %s: %w", WeightsName, err)
	}
	if nets != nil {
		err = checkpoints.SaveSafetensorsNets(filepath.Join(dir, WeightsName), nets, weightsMeta(name, c, data))
	} else {
		err = checkpoints.SaveSafetensors(filepath.Join(dir, WeightsName), c.Policy, weightsMeta(name, c, data))
	}
	if err != nil {
		return fmt.Errorf("run: %s: %w", WeightsName, err)
	}
	return nil
}

// bestWritten is the Manager's OnBest: best.mpdf now holds c as data.
func (r *runner) bestWritten(c *checkpoints.Checkpoint, data []byte) error {
	return writeWeights(r.cfg.Dir, checkpoints.BestName, c, data)
}

// syncWeights makes dir's policy.safetensors hold best.mpdf's weights (the
// latest checkpoint's when there is no best.mpdf), unless it already
// records that file and its SHA-256.
func syncWeights(dir string) error {
	name := checkpoints.BestName
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		latest, lerr := checkpoints.Latest(dir)
		if lerr != nil {
			return fmt.Errorf("run: %s: %w", WeightsName, lerr)
		}
		name = filepath.Base(latest)
		data, err = os.ReadFile(latest)
	}
	if err != nil {
		return fmt.Errorf("run: %s: %w", WeightsName, err)
	}
	sum := sha256.Sum256(data)
	_, _, meta, err := checkpoints.LoadSafetensorsAny(filepath.Join(dir, WeightsName), checkpoints.WithFeatureVersion(""))
	if err == nil && meta[MetaCheckpoint] == name && meta[MetaCheckpointSHA256] == hex.EncodeToString(sum[:]) {
		return nil
	}
	c, err := checkpoints.Unmarshal(data, checkpoints.WithFeatureVersion(""))
	if err != nil {
		return fmt.Errorf("run: %s: from %s: %w", WeightsName, name, err)
	}
	return writeWeights(dir, name, c, data)
}
