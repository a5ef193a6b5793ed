package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTeamSizeBounded gives every command a team over metapolicy.MaxAgents
// (64), each a real process: simulate --agents 1e6, eval on a replay of
// 2,000 agents with distinct answers, data stats, data validate and offline train on a
// rollout episode of 2,000 agents. Each must refuse the team with a clear
// error naming its size and the cap, with a small peak RSS (issue 34,
// cause 2: 9.7 s of CPU in eval, > 60 s in train, 8.3 s in data stats;
// simulate --agents 1e6 grew past 638 MB). A team of 64 distinct answers,
// at the cap, is played by a learned policy.
func TestTeamSizeBounded(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	transcript := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for q := range 2 {
			if q > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"Question %d: what is %d + 1?": [[`, q, q)
			for a := range n {
				if a > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `[{"role":"user","content":"q"},{"role":"assistant","content":"The answer is %d."},{"role":"user","content":"others?"},{"role":"assistant","content":"The answer is %d."}]`, a+100, a+100)
			}
			fmt.Fprintf(&b, `], "%d"]`, q+1)
		}
		b.WriteString("}")
		path := filepath.Join(dir, fmt.Sprintf("gsm_team_agents%d_rounds2.json", n))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	big := transcript(2000)
	var ep strings.Builder
	ep.WriteString(`{"kind":"episode","id":"e","task":"t","gold":"1","agents":2000,"rounds":[{"turns":[`)
	for a := range 2000 {
		if a > 0 {
			ep.WriteString(",")
		}
		fmt.Fprintf(&ep, `{"answer":"%d","profile":{},"tokens":1}`, a)
	}
	ep.WriteString("]}]}\n")
	episodes := filepath.Join(dir, "team.jsonl")
	if err := os.WriteFile(episodes, []byte(ep.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--agents", "1000000", "--out", filepath.Join(dir, "sim.jsonl"), "-q"}, "agents 1000000, more than the 64 a team may hold"},
		{[]string{"eval", "--env", "replay:" + big, "--no-baselines", "--policy", "debate"}, "2000 agents, more than the 64 a team may hold"},
		{[]string{"data", "stats", episodes}, "rejected 1"},
		{[]string{"data", "validate", episodes}, "team.jsonl:1: agents: 2000, more than the 64 a team may hold"},
		{[]string{"train", episodes, "--out", filepath.Join(dir, "run"), "-q"}, "team.jsonl:1: agents: 2000, more than the 64 a team may hold"},
	} {
		cmd, peak := measured(t, bin, c.args...)
		b, err := cmd.CombinedOutput()
		rss := peak()
		t.Logf("mpdf %s: peak RSS %d MiB: %.300s", c.args[0], rss, b)
		if !strings.Contains(string(b), c.want) {
			t.Errorf("mpdf %s: %v %q, want it to say %q", strings.Join(c.args[:2], " "), err, b, c.want)
		}
		if rss > 200 {
			t.Errorf("mpdf %s: peak RSS %d MiB, want under 200", c.args[0], rss)
		}
	}
	// Under the cap: played, by a learned policy (every agent featurized).
	ckpt, _ := writeCheckpoint(t, dir, true)
	if b, err := exec.Command(bin, "eval", "--env", "replay:"+transcript(64), "--no-baselines", "--policy", ckpt).CombinedOutput(); err != nil {
		t.Errorf("eval of 64 agents: %v\n%s", err, b)
	}
}
