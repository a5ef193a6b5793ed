package metapolicy

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/nn"
)

// Action is a meta-action. Its numeric value is the index of the policy's
// output (design §1). The action set is data: actionNames below is its one
// list, and NumActions, Actions, the names on the wire and the error words
// all follow it. docs/architecture.md ("Adding an action") lists the places
// written for exactly three actions, each of which fails to build when the
// list grows.
type Action uint8

const (
	Persist Action = iota // keep the current answer; no LLM call
	Refine                // self-correct, shown the peers' answers
	Concede               // adopt the peers' best-supported answer
)

// actionNames is the action set: one name per Action, in index order. The
// names are the wire's (JSON keys and values, metrics, safetensors
// metadata, plots, the pages).
var actionNames = [...]string{"persist", "refine", "concede"}

// NumActions is the number of meta-actions. It is nn.NumActions, the one
// count: nn sits below metapolicy and sizes the policy's output and its
// loss kernels by it, and an untyped constant (unlike len of the list)
// sizes arrays and compares with an Action alike.
const NumActions = nn.NumActions

// The list and the count agree, or this fails to build: a name added to
// actionNames needs nn.NumActions raised with it.
var _ [NumActions]string = actionNames

// Names returns the actions' names in index order.
func Names() [NumActions]string { return actionNames }

// NamesList is the names as prose, "persist, refine or concede", for
// error messages that list the valid actions.
func NamesList() string {
	return strings.Join(actionNames[:NumActions-1], ", ") + " or " + actionNames[NumActions-1]
}

// Actions lists the meta-actions in index order.
var Actions = func() (as [NumActions]Action) {
	for i := range as {
		as[i] = Action(i) // from the list's indices: no action is left out
	}
	return as
}()

func (a Action) String() string {
	if a < NumActions {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Valid reports whether a is one of the actions.
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

// ParseAction parses an action's name ("persist", "refine" or "concede").
func ParseAction(s string) (Action, error) {
	for i, n := range actionNames {
		if s == n {
			return Action(i), nil
		}
	}
	return 0, fmt.Errorf("metapolicy: unknown action %q (want %s)", s, NamesList())
}
