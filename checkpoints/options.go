package checkpoints

import (
	"fmt"

	"github.com/mpdf/mpdf/metapolicy"
)

// DefaultMaxBytes is the default limit on the decompressed body of a
// checkpoint and on the tensor data of a safetensors file: 1 GiB.
const DefaultMaxBytes int64 = 1 << 30

// maxSafetensorsHeader bounds a safetensors JSON header whatever the byte
// limit, as the reference Rust implementation does (100 MB).
const maxSafetensorsHeader = 100_000_000

// Option configures a reader (Load, Unmarshal, Decode, ImportSafetensors,
// LoadSafetensors). Options validate their argument and return an error.
type Option func(*options) error

type options struct {
	featureVersion string // "" = no check
	maxBytes       int64
}

func newOptions(opts []Option) (options, error) {
	o := options{featureVersion: metapolicy.FeatureVersion, maxBytes: DefaultMaxBytes}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// WithFeatureVersion sets the feature-schema version the file must record;
// a different one gives ErrFeatureSchema. The default is
// metapolicy.FeatureVersion; "" accepts any version (for inspection tools).
func WithFeatureVersion(v string) Option {
	return func(o *options) error {
		o.featureVersion = v
		return nil
	}
}

// WithMaxBytes bounds what a reader allocates: the decompressed checkpoint
// body, or the tensor data of a safetensors file. n must be positive; the
// default is DefaultMaxBytes.
func WithMaxBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("checkpoints: WithMaxBytes(%d): want > 0", n)
		}
		o.maxBytes = n
		return nil
	}
}
