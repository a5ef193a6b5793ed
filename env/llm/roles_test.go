package llm

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/data"
)

// An episode written before the judge was renamed records its exchanges
// as "critic" (testdata/critic-role.jsonl, one line in that build's
// shape). It still loads, and its "critic" exchanges read as the judge's.
func TestOldCriticRoleReadsAsJudge(t *testing.T) {
	r, err := data.Open([]string{"testdata/critic-role.jsonl"}, data.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := r.Next()
	if err != nil {
		t.Fatalf("the old episode does not load: %v", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the one record: %v, want EOF", err)
	}
	var judged int
	for i, turn := range rec.Episode.Rounds[0].Turns {
		var got []string
		for _, ex := range turn.Exchanges {
			got = append(got, CanonicalRole(ex.Role))
		}
		if len(got) != 2 || got[0] != RoleSolve || got[1] != RoleJudge || !JudgeRole(turn.Exchanges[1].Role) || JudgeRole(turn.Exchanges[0].Role) {
			t.Errorf("agent %d: roles %q read as %q, want solve then the judge", i, roles(turn), got)
		}
		if turn.Exchanges[1].Role == roleCritic {
			judged++
		}
	}
	if judged != 2 {
		t.Errorf("%d exchanges recorded as \"critic\" in the fixture, want 2 (the fixture must hold the old name)", judged)
	}
}

// New episodes record the judge as "judge"; other roles read as
// themselves.
func TestJudgeRoleNames(t *testing.T) {
	for role, want := range map[string]string{"judge": RoleJudge, "critic": RoleJudge, "solve": RoleSolve, "refine": RoleRefine, "concede": RoleConcede, "": "", "Critic": "Critic"} {
		if got := CanonicalRole(role); got != want {
			t.Errorf("CanonicalRole(%q) = %q, want %q", role, got, want)
		}
		if JudgeRole(role) != (want == RoleJudge) {
			t.Errorf("JudgeRole(%q) = %v", role, JudgeRole(role))
		}
	}
	s := newFakeServer(t, model)
	g, _ := newTestEnv(t, s, Options{}, nil).Start(0, rand.New(rand.NewPCG(1, 1)))
	turns, err := g.Initial()
	if err != nil {
		t.Fatal(err)
	}
	for i, turn := range turns {
		if ex := turn.Exchanges[len(turn.Exchanges)-1]; ex.Role != "judge" {
			t.Errorf("agent %d: the judge's exchange is recorded as %q, want \"judge\"", i, ex.Role)
		}
	}
}
