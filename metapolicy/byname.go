package metapolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ByName is one value per action, in action order, written to JSON as an
// object keyed by the actions' names in that order ({"persist": …,
// "refine": …, "concede": …}), each value as encoding/json writes it: the
// bytes a struct with one field per action wrote, from the one list.
type ByName[T any] [NumActions]T

// MarshalJSON implements json.Marshaler.
func (v ByName[T]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(actionNames[i])
		b.Write(k)
		b.WriteByte(':')
		e, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("metapolicy: %s: %w", actionNames[i], err)
		}
		b.Write(e)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler: an action's value is read
// from its name's key (matched as encoding/json matches a field's key,
// exactly or else without regard to case, the first such key in byte order); other keys are ignored and a
// missing action's value is left as it was.
func (v *ByName[T]) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for i, n := range actionNames {
		raw, ok := m[n]
		if !ok {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if strings.EqualFold(k, n) {
					raw, ok = m[k], true
					break
				}
			}
		}
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, &v[i]); err != nil {
			return fmt.Errorf("metapolicy: %s: %w", n, err)
		}
	}
	return nil
}
