package compare

// Files reads the results files paths (ReadResultsFile), and pair
// as cfg.Pair unless it is "", then compares them (Compare).
func Files(paths []string, pair string, cfg Config) (*Comparison, error) {
	inputs := make([]*Results, 0, len(paths))
	for _, path := range paths {
		r, err := ReadResultsFile(path)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, r)
	}
	if pair != "" {
		var err error
		if cfg.Pair, err = ReadResultsFile(pair); err != nil {
			return nil, err
		}
	}
	return Compare(inputs, cfg)
}

// ParseCeilings parses the scopes of hindsight ceilings, each as
// ParseBy does: Config.Ceilings.
func ParseCeilings(scopes []string) ([]By, error) {
	var out []By
	for _, s := range scopes {
		c, err := ParseBy(s)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
