package data

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/mpdf/mpdf/metapolicy"
)

// DefaultBatchRows is the default number of rows DecisionStream.ReadColumns
// delivers at a time: an offline training pass's rollout batch, and a
// pack's block (PackBlockRows). 8,192 keeps a pass's live heap under 2× a
// small pack's size and its whole memory near 100 MiB whatever the data's
// size, at no measured cost in speed (docs/performance.md: offline memory).
const DefaultBatchRows = 1 << 13

// DecisionStream turns the records of a Reader into training decisions:
// decision records pass as they are, episodes become their Decisions under
// a RewardConfig (with Gamma > 0, returns computed over each episode's own
// rounds; a decision record is then an error, its episode being unknown). Episodes without gold yield nothing and are counted
// (NoGold) and reported (OnNoGold). Group keys get ids in order of first
// appearance. All decisions must share one feature width: mixing decision
// records of another width with episodes (whose features are
// metapolicy.FeatureWidth wide) is an error.
type DecisionStream struct {
	// BatchRows bounds the rows of one ReadColumns; 0 means DefaultBatchRows.
	BatchRows int
	// OnNoGold, when set, is called with each episode that has no gold.
	OnNoGold func(Pos, *Episode)
	// Layout featurizes the episodes' decisions (the zero Featurizer:
	// metapolicy.FeatureVersion); decision records keep their features.
	Layout metapolicy.Featurizer

	r       *Reader
	cfg     RewardConfig
	pending []Decision
	pi      int
	pos     Pos
	ids     map[string]uint32
	names   []string
	width   int
	counts  StreamCounts
	err     error
}

// StreamCounts counts what a DecisionStream produced.
type StreamCounts struct {
	FromEpisodes int64 `json:"from_episodes"`         // decisions made from episodes
	FromRecords  int64 `json:"from_decision_records"` // decision records passed on
	NoGold       int64 `json:"no_gold_episodes"`      // episodes without gold, skipped
}

// NewDecisionStream returns a stream of r's decisions under cfg.
func NewDecisionStream(r *Reader, cfg RewardConfig) (*DecisionStream, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &DecisionStream{r: r, cfg: cfg.withDefaults(), ids: map[string]uint32{}}, nil
}

// Next returns the next decision and the position of the record it came
// from, or io.EOF. The decision is valid until the next call. Errors of
// the Reader (a *RecordError when it does not skip) are passed on.
func (s *DecisionStream) Next() (*Decision, Pos, error) {
	for s.pi >= len(s.pending) {
		if s.err != nil {
			return nil, Pos{}, s.err
		}
		rec, err := s.r.Next()
		if err != nil {
			var re *RecordError
			if !errors.As(err, &re) {
				s.err = err
			}
			return nil, Pos{}, err
		}
		s.pending, s.pi, s.pos = s.pending[:0], 0, rec.Pos
		if rec.Decision != nil {
			if s.cfg.Gamma != 0 {
				// Its reward is given and its episode unknown: no return-to-go.
				s.err = fmt.Errorf("data: %s: decision record: reward: gamma %v needs the episode's rounds, which a decision record does not carry (train with gamma 0, or from episode records)", rec.Pos, s.cfg.Gamma)
				return nil, Pos{}, s.err
			}
			if err := s.checkWidth(rec.Decision, "decision record"); err != nil {
				return nil, Pos{}, err
			}
			s.counts.FromRecords++
			return rec.Decision, rec.Pos, nil
		}
		ds, err := DecisionsIn(rec.Episode, s.cfg, s.Layout)
		if errors.Is(err, ErrNoGold) {
			s.counts.NoGold++
			if s.OnNoGold != nil {
				s.OnNoGold(rec.Pos, rec.Episode)
			}
			continue
		}
		if err != nil {
			s.err = fmt.Errorf("data: %s: %w", rec.Pos, err)
			return nil, Pos{}, s.err
		}
		if len(ds) > 0 {
			if err := s.checkWidth(&ds[0], "episode"); err != nil {
				return nil, Pos{}, err
			}
		}
		s.counts.FromEpisodes += int64(len(ds))
		s.pending = ds
	}
	s.pi++
	return &s.pending[s.pi-1], s.pos, nil
}

func (s *DecisionStream) checkWidth(d *Decision, what string) error {
	if s.width == 0 {
		s.width = len(d.Features)
	}
	if len(d.Features) != s.width {
		s.err = fmt.Errorf("data: %s: %s gives %d features but earlier decisions have %d: one data set must use one feature encoding",
			s.pos, what, len(d.Features), s.width)
		return s.err
	}
	return nil
}

// ReadColumns refills dst with up to BatchRows decisions; it returns
// io.EOF when none is left. On another error dst holds the rows read
// before it, which the next call does not deliver again.
func (s *DecisionStream) ReadColumns(dst *Columns) error {
	limit := s.BatchRows
	if limit <= 0 {
		limit = DefaultBatchRows
	}
	dst.Reset(s.width)
	for dst.Len() < limit {
		d, _, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			dst.GroupNames = s.names
			return err
		}
		if dst.Len() == 0 {
			dst.Width = s.width
		}
		g, err := s.groupID(d.Group)
		if err != nil {
			return err
		}
		if err := dst.Append(d, g); err != nil {
			return err
		}
	}
	dst.GroupNames = s.names
	if dst.Len() == 0 {
		return io.EOF
	}
	return nil
}

func (s *DecisionStream) groupID(g string) (uint32, error) {
	id, ok := s.ids[g]
	if !ok {
		if uint64(len(s.names)) == math.MaxUint32 {
			return 0, fmt.Errorf("data: %s: more than %d groups", s.pos, uint32(math.MaxUint32))
		}
		id = uint32(len(s.names))
		s.ids[g] = id
		s.names = append(s.names, g)
	}
	return id, nil
}

// GroupNames is the group table so far: ReadColumns' group ids index it.
func (s *DecisionStream) GroupNames() []string { return s.names }

// Width is the feature width of the decisions so far (0 before the first).
func (s *DecisionStream) Width() int { return s.width }

// Counts returns what the stream has produced so far.
func (s *DecisionStream) Counts() StreamCounts { return s.counts }
