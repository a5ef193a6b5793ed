package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// writeTranscript writes a small LLM-Debate transcript (two agents, round 0
// and one deliberation round, three questions) and returns its path. Of its
// 12 answers one is unreadable ("I cannot tell."). Question q's gold is
// 10+q; agent 0 is right from round 0, agent 1 only after the debate.
func writeTranscript(t *testing.T, dir string) string {
	t.Helper()
	doc := map[string]any{}
	for q := range 3 {
		text := fmt.Sprintf("Question %d: what is %d + 10?", q, q)
		gold := fmt.Sprintf("%d + 10 = <<%d+10=%d>>%d\n#### %d", q, q, q+10, q+10, q+10)
		chat := func(first, second string) []map[string]string {
			return []map[string]string{
				{"role": "user", "content": text},
				{"role": "assistant", "content": first},
				{"role": "user", "content": "These are the solutions to the problem from other agents. Can you provide your answer?"},
				{"role": "assistant", "content": second},
			}
		}
		wrong := fmt.Sprintf("Maybe it is %d.\n\\boxed{%d}", q+11, q+11)
		if q == 2 {
			wrong = "I cannot tell."
		}
		agents := []any{
			chat(fmt.Sprintf("%d + 10 = %d\n\\boxed{%d}", q, q+10, q+10), fmt.Sprintf("Still \\boxed{%d}", q+10)),
			chat(wrong, fmt.Sprintf("I agree with the others: \\boxed{%d}", q+10)),
		}
		doc[text] = []any{agents, gold}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gsm_Tiny_agents2_rounds2.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportTranscript(t *testing.T) {
	dir := t.TempDir()
	tr := writeTranscript(t, dir)
	out := filepath.Join(dir, "episodes.jsonl")
	stdout := mustRun(t, "import", tr, "--out", out)
	for _, want := range []string{"gsm8k", "Tiny", "1/6 (16.7%)", "1/12 (8.3%)", "wrote 3 episodes from 1 files"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("import report lacks %q:\n%s", want, stdout)
		}
	}
	recs, c := readAll(t, out)
	if c.Episodes != 3 || c.Rejected != 0 {
		t.Fatalf("counts %+v, want 3 episodes and no rejection", c)
	}
	for _, rec := range recs {
		ep := rec.Episode
		if ep.Agents != 2 || len(ep.Rounds) != 2 || ep.Gold == "" || ep.Policy != "debate" {
			t.Fatalf("episode %+v: want 2 agents, 2 rounds, a gold, policy debate", ep)
		}
		if got := ep.Rounds[1].Turns[1].Answer; got != ep.Gold {
			t.Errorf("%s: agent 1's round-1 answer %q, want the gold %q", ep.ID, got, ep.Gold)
		}
		if a := ep.Rounds[1].Turns[0].Action; a == nil || *a != metapolicy.Refine {
			t.Errorf("%s: round-1 action %v, want refine", ep.ID, a)
		}
	}

	js := mustRun(t, "import", tr, "--out", filepath.Join(dir, "again.jsonl.gz"), "--json")
	var v struct {
		Episodes int64 `json:"episodes"`
		Files    []struct {
			Questions       int     `json:"questions"`
			Unreadable      int     `json:"unreadable"`
			UnreadableShare float64 `json:"unreadable_share"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if v.Episodes != 3 || len(v.Files) != 1 || v.Files[0].Questions != 3 || v.Files[0].Unreadable != 1 ||
		v.Files[0].UnreadableShare != 1.0/12 {
		t.Errorf("--json gave %+v", v)
	}

	// A file that is not a transcript: an error naming it, no output left.
	bad := filepath.Join(dir, "gsm_bad.json")
	os.WriteFile(bad, []byte(`["not", "an object"]`), 0o644)
	badOut := filepath.Join(dir, "bad.jsonl")
	if _, err := runCmd(t, "import", bad, "--out", badOut); err == nil || !strings.Contains(err.Error(), "gsm_bad.json") {
		t.Errorf("import of a non-transcript: error %v, want one naming the file", err)
	}
	if _, err := os.Stat(badOut); err == nil {
		t.Error("a failed import left its output")
	}
}

func TestEvalReplay(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir)
	js := mustRun(t, "eval", "--env", "replay:"+filepath.Join(dir, "gsm_*.json"), "--policy", "persist,debate", "-q", "--json")
	var rs []env.Result
	if err := json.Unmarshal([]byte(js), &rs); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(rs) != 2 || rs[0].Policy != "persist" || rs[1].Policy != "debate" {
		t.Fatalf("results %+v, want persist then debate", rs)
	}
	// Round 0: agent 0 right, agent 1 wrong or unreadable. The tie-break
	// of two different answers goes to the lowest index (agent 0, right),
	// and after the debate both are right: 3/3 either way; the replay
	// must score each question once per policy.
	for _, r := range rs {
		if r.Episodes != 3 || r.Scored != 3 || r.Correct != 3 {
			t.Errorf("%s: %d episodes, %d scored, %d correct; want 3, 3, 3", r.Policy, r.Episodes, r.Scored, r.Correct)
		}
	}
	if rs[0].Actions[metapolicy.Persist] != 1 || rs[1].Actions[metapolicy.Refine] != 1 {
		t.Errorf("action shares %+v / %+v", rs[0].Actions, rs[1].Actions)
	}
	if rs[0].TokensPerTask >= rs[1].TokensPerTask {
		t.Errorf("persist costs %v tokens, debate %v: persisting must be cheaper", rs[0].TokensPerTask, rs[1].TokensPerTask)
	}
	if _, err := runCmd(t, "eval", "--env", "replay:"+filepath.Join(dir, "none_*.json"), "-q"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("replay of nothing: error %v", err)
	}
}

func TestImportRealTranscripts(t *testing.T) {
	matches := testenv.Debates(t, "slm-debate/gsm/gsm_*agents3*.json")
	out := filepath.Join(t.TempDir(), "real.jsonl.zst")
	stdout := mustRun(t, "import", matches[0], "--out", out)
	_, c := readAll(t, out)
	if c.Episodes == 0 || c.Rejected != 0 || !strings.Contains(stdout, fmt.Sprintf("wrote %d episodes", c.Episodes)) {
		t.Errorf("counts %+v, report:\n%s", c, stdout)
	}
}
