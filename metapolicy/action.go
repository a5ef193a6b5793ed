package metapolicy

import "fmt"

// Action is a meta-action. Its numeric value is the index of the policy's
// output (design §1).
type Action uint8

const (
	Persist Action = iota // keep the current answer; no LLM call
	Refine                // self-correct, shown the peers' answers
	Concede               // adopt the peers' best-supported answer
)

// NumActions is the number of meta-actions.
const NumActions = 3

var actionNames = [NumActions]string{"persist", "refine", "concede"}

// Actions lists the meta-actions in index order.
var Actions = [NumActions]Action{Persist, Refine, Concede}

func (a Action) String() string {
	if a < NumActions {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Valid reports whether a is one of the three actions.
func (a Action) Valid() bool { return a < NumActions }

// MarshalText implements encoding.TextMarshaler.
func (a Action) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("metapolicy: invalid action %d", uint8(a))
	}
	return []byte(actionNames[a]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Action) UnmarshalText(b []byte) error {
	v, err := ParseAction(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// ParseAction parses "persist", "refine" or "concede".
func ParseAction(s string) (Action, error) {
	for i, n := range actionNames {
		if s == n {
			return Action(i), nil
		}
	}
	return 0, fmt.Errorf("metapolicy: unknown action %q (want persist, refine or concede)", s)
}
