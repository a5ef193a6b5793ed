package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/errmark"
)

// shard sets the tasks p plays: all of them, or with cfg.Shards those of
// shard cfg.Shard, whose record it writes beside cfg.Out (checking, on
// resume, that it is the one written before). An unsharded run refuses to
// resume a shard's output and drops a stale record it replaces.
func (p *collectPlan) shard(cfg CollectConfig, client *Client, e *Env) error {
	recPath := data.ShardRecordPath(cfg.Out)
	if cfg.Shards == 0 {
		p.play = make([]int, len(p.tasks))
		for k := range p.play {
			p.play[k] = k
		}
		if _, err := os.Lstat(recPath); err != nil {
			return nil
		}
		_, outErr := os.Lstat(cfg.Out)
		switch {
		case cfg.Resume && outErr == nil:
			return errmark.Mark(fmt.Errorf("%s was collected as a shard (%s)", cfg.Out, recPath), ErrShardOutput)
		case cfg.Overwrite || outErr != nil:
			return os.Remove(recPath) // a stale record must not describe this run's output
		}
		return nil
	}
	if cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
		return fmt.Errorf("llm: collect: shard %d/%d: want 0 ≤ shard < shards", cfg.Shard, cfg.Shards)
	}
	var mine []data.ShardTask
	for k, t := range p.tasks {
		if data.ShardOf(t.ID, cfg.Shards) == cfg.Shard {
			p.play = append(p.play, k)
			mine = append(mine, data.ShardTask{Index: k, ID: t.ID})
		}
	}
	inputs, err := p.inputs(cfg, client, e)
	if err != nil {
		return err
	}
	rec := data.NewCollectShard(cfg.Shard, cfg.Shards, len(p.tasks), cfg.Episodes, inputs, mine)
	if cfg.Resume {
		old, err := data.ReadCollectShard(recPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if _, serr := os.Lstat(cfg.Out); serr == nil {
				return errmark.Mark(fmt.Errorf("%s has no shard record %s", cfg.Out, recPath), ErrNotShard)
			}
		case err != nil:
			return err
		case old.Shard != rec.Shard || old.Shards != rec.Shards:
			return errmark.Mark(fmt.Errorf("%s is shard %d/%d, this run %d/%d", cfg.Out, old.Shard, old.Shards, rec.Shard, rec.Shards), ErrOtherShard)
		default:
			if d := old.Same(rec); d != "" {
				return fmt.Errorf("%s: this run has %s: resume with the first run's flags", recPath, d)
			}
			if old.Build != rec.Build {
				// One shard's episodes come from one build; its cache makes
				// starting it over cheap when the prompts did not change.
				return fmt.Errorf("%s was collected by %s, this is %s: resume with that build, or start the shard over (its response cache answers the calls that did not change)", cfg.Out, old.Build, rec.Build)
			}
		}
	} else if _, err := os.Lstat(cfg.Out); err == nil && !cfg.Overwrite {
		return fmt.Errorf("%s %w", cfg.Out, ErrExists)
	} else if fi, err := os.Lstat(data.SpoolPath(cfg.Out)); err == nil && fi.Size() > 0 && !cfg.Overwrite {
		// Checked before the record is rewritten: it must stay the killed run's.
		return errmark.Mark(fmt.Errorf("%s was left mid-way: %s holds its finished episodes", cfg.Out, data.SpoolPath(cfg.Out)), ErrMidway)
	}
	return data.WriteCollectShard(recPath, rec)
}

// inputs are what shapes a collection's episodes, recorded in a shard's
// record so that shards of different collections are not merged. The
// server's URL is not one: shards may play against different replicas.
func (p *collectPlan) inputs(cfg CollectConfig, client *Client, e *Env) (map[string]string, error) {
	h := sha256.New()
	for _, t := range p.tasks {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		h.Write(append(b, '\n'))
	}
	ps := sha256.New()
	for _, s := range e.opts.Personas {
		fmt.Fprintf(ps, "%d:%s", len(s), s)
	}
	temp := "server"
	if t := client.cfg.Temperature; t != nil {
		temp = strconv.FormatFloat(*t, 'g', -1, 64)
	}
	in := map[string]string{
		"tasks_sha256":   hex.EncodeToString(h.Sum(nil)),
		"policy":         p.policy,
		"seed":           strconv.FormatUint(p.seed, 10),
		"greedy":         strconv.FormatBool(cfg.Greedy),
		"rounds":         strconv.Itoa(p.rounds),
		"agents":         strconv.Itoa(p.agents),
		"source":         p.source,
		"model":          client.cfg.Model,
		"temperature":    temp,
		"max_tokens":     strconv.Itoa(client.cfg.MaxTokens),
		"personas":       strconv.Itoa(len(e.opts.Personas)) + ":" + hex.EncodeToString(ps.Sum(nil)),
		"concede_call":   strconv.FormatBool(e.opts.ConcedeCall),
		"no_judge":       strconv.FormatBool(e.opts.NoJudge),
		"no_seed":        strconv.FormatBool(e.opts.NoSeed),
		"concede_tokens": strconv.Itoa(e.opts.ConcedeTokens),
	}
	for key, path := range map[string]string{"tasks_file_sha256": cfg.TasksFile, "policy_sha256": cfg.PolicyFile} {
		if path == "" {
			continue
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, err
		}
		in[key] = sum
	}
	return in, nil
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
