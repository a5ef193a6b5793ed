package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/study"
)

// WriteJSON writes the comparison as indented JSON.
func (c *Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// WriteMarkdown writes the comparison: what was compared; every policy's
// pooled accuracy with its interval; when broken down, one table of
// accuracy / tokens per task and one of paired differences, a line per
// group; then the hindsight ceilings.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	lvl := study.Percent(c.Bootstrap.Level)
	fmt.Fprintf(&b, "# mpdf study compare\n\n")
	for i, in := range c.Inputs {
		verb := "- compared:"
		if i > 0 {
			verb = "- pooled with:"
		}
		fmt.Fprintf(&b, "%s `%s` (%d rows)\n", verb, in, c.InputRows[i])
	}
	if c.Paired != "" {
		fmt.Fprintf(&b, "- paired with: `%s` (B), row by row on transcript file, task and seed", c.Paired)
		if c.PairedOff > 0 {
			fmt.Fprintf(&b, "; %d of its task × seed rows pair with none here and are left out", c.PairedOff)
		}
		fmt.Fprintf(&b, "\n")
	}
	fmt.Fprintf(&b, "- %d task × seed rows, %d questions; intervals: %s percentile bootstrap, %d resamples of questions (seed %d); Δ in points, paired by task and seed\n",
		c.Rows, c.Questions, lvl, c.Bootstrap.Resamples, c.Bootstrap.Seed)

	all := c.Scopes[0]
	fmt.Fprintf(&b, "\n## All rows\n\n| policy | tasks × seeds | accuracy | %s CI | tokens/task | persist | refine | concede |\n|---|---:|---:|---|---:|---:|---:|---:|\n", lvl)
	for _, p := range all.Policies {
		fmt.Fprintf(&b, "| %s | %d | %.3f | [%.3f, %.3f] | %.0f | %.3f | %.3f | %.3f |\n", p.Policy, p.Rows,
			p.Accuracy.Estimate, p.Accuracy.Low, p.Accuracy.High, p.TokensPerTask, p.Persist, p.Refine, p.Concede)
	}

	c.writeByGroup(&b, all)
	c.writePaired(&b, all, lvl)
	c.writeCeilings(&b, lvl)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeByGroup writes each group's accuracy and tokens per policy, when
// the comparison breaks its rows down.
func (c *Comparison) writeByGroup(b *strings.Builder, all Scope) {
	if len(c.Scopes) > 1 {
		fmt.Fprintf(b, "\n## Accuracy / tokens per task by %s\n\n| %s | tasks × seeds |", c.By, c.By)
		for _, p := range all.Policies {
			fmt.Fprintf(b, " %s |", p.Policy)
		}
		fmt.Fprintf(b, "\n|---|---:|%s\n", strings.Repeat("---:|", len(all.Policies)))
		for _, sc := range c.Scopes {
			fmt.Fprintf(b, "| %s | %d |", sc.Name, sc.Rows)
			for _, p := range all.Policies {
				cell := "—"
				for _, q := range sc.Policies {
					if q.Policy == p.Policy {
						cell = fmt.Sprintf("%.3f / %.0f", q.Accuracy.Estimate, q.TokensPerTask)
					}
				}
				fmt.Fprintf(b, " %s |", cell)
			}
			fmt.Fprintf(b, "\n")
		}
	}

}

// writePaired writes the paired differences of every scope: against the
// baselines, and across the paired study (B).
func (c *Comparison) writePaired(b *strings.Builder, all Scope, lvl string) {
	var head []string
	for _, d := range all.Diffs {
		head = append(head, d.Learned+" − "+d.Other)
	}
	for _, d := range all.Paired {
		head = append(head, d.Policy+" − "+d.Other+" (B)")
	}
	if len(head) > 0 {
		fmt.Fprintf(b, "\n## Paired differences, points [%s CI]\n\n| %s |", lvl, scopeHead(c.By))
		for _, h := range head {
			fmt.Fprintf(b, " %s |", h)
		}
		fmt.Fprintf(b, "\n|---|%s\n", strings.Repeat("---|", len(head)))
		for _, sc := range c.Scopes {
			fmt.Fprintf(b, "| %s |", sc.Name)
			for _, d := range all.Diffs {
				fmt.Fprintf(b, " %s |", diffCell(sc.Diffs, d.Learned, d.Other))
			}
			for _, d := range all.Paired {
				cell := "—"
				for _, e := range sc.Paired {
					if e.Policy == d.Policy && e.Other == d.Other {
						cell = points(e.Accuracy)
					}
				}
				fmt.Fprintf(b, " %s |", cell)
			}
			fmt.Fprintf(b, "\n")
		}
	}

}

// writeCeilings writes the hindsight ceilings, one fixed protocol per
// group, and each ceiling's choices.
func (c *Comparison) writeCeilings(b *strings.Builder, lvl string) {
	if len(c.Ceilings) > 0 {
		fmt.Fprintf(b, "\n## Hindsight ceilings: one fixed protocol per group\n\n")
		fmt.Fprintf(b, "Per group the fixed protocol with the best accuracy on these very rows, chosen knowing the answers: an upper bound of a policy that picks one protocol per group, not a policy. Chosen among: %s.\n\n",
			strings.Join(c.Ceilings[0].Among, ", "))
		fmt.Fprintf(b, "| ceiling | tasks × seeds | accuracy [%s CI] | tokens/task |", lvl)
		dh := ceilingHead(c.Ceilings[0])
		for _, h := range dh {
			fmt.Fprintf(b, " %s |", h)
		}
		fmt.Fprintf(b, "\n|---|---:|---|---:|%s\n", strings.Repeat("---|", len(dh)))
		for _, ce := range c.Ceilings {
			fmt.Fprintf(b, "| %s | %d | %.3f [%.3f, %.3f] | %.0f |", ce.Name, ce.Rows, ce.Accuracy.Estimate, ce.Accuracy.Low, ce.Accuracy.High, ce.Tokens)
			for _, d := range ce.Diffs {
				fmt.Fprintf(b, " %s |", points(d.Accuracy))
			}
			fmt.Fprintf(b, "\n")
		}
		for _, ce := range c.Ceilings {
			fmt.Fprintf(b, "\n%s:", ce.Name)
			for i, ch := range ce.Choices {
				sep := ","
				if i == 0 {
					sep = ""
				}
				fmt.Fprintf(b, "%s %s = %s (%.3f)", sep, ch.Group, ch.Protocol, ch.Accuracy)
			}
			fmt.Fprintf(b, "\n")
		}
	}
}

func scopeHead(by By) string {
	if by == Overall {
		return "rows"
	}
	return string(by)
}

// ceilingHead names a ceiling's differences with the ceiling called "it".
func ceilingHead(ce Ceiling) []string {
	var out []string
	for _, d := range ce.Diffs {
		l, o := d.Learned, d.Other
		if l == ce.Name {
			l = "it"
		}
		if o == ce.Name {
			o = "it"
		}
		out = append(out, l+" − "+o)
	}
	return out
}

func diffCell(ds []study.Diff, l, o string) string {
	for _, d := range ds {
		if d.Learned == l && d.Other == o {
			return points(d.Accuracy)
		}
	}
	return "—"
}

// points prints a difference of accuracies in points with its interval.
func points(iv stats.Interval) string {
	return fmt.Sprintf("%+.1f [%+.1f, %+.1f]", 100*iv.Estimate, 100*iv.Low, 100*iv.High)
}
