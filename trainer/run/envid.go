package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/env"
)

// EnvID identifies the tasks of an online run: a SHA-256 of the training
// and the held-out Env's names and, side by side, every task's id in order.
// A replay's name lists its files, so a glob that matches other files at
// resume, or another train/held-out split, gives another identity.
func EnvID(train, heldOut env.Env) (string, error) {
	h := sha256.New()
	rng := rand.New(rand.NewPCG(0, 0)) // task ids do not depend on the episode's stream
	for side, e := range []env.Env{train, heldOut} {
		if e == nil {
			continue
		}
		fmt.Fprintf(h, "side %d %q %d\n", side, e.Name(), e.NumTasks())
		for t := range e.NumTasks() {
			g, err := e.Start(t, rng)
			if err != nil {
				return "", fmt.Errorf("run: environment identity: %w", err)
			}
			id, _, _ := g.Task()
			fmt.Fprintf(h, "%q\n", id)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
