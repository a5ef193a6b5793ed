package compare

// CompareFiles reads the results files paths (ReadResultsFile), and pair
// as cfg.Pair unless it is "", then compares them (Compare).
func CompareFiles(paths []string, pair string, cfg CompareConfig) (*Comparison, error) {
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
// ParseCompareBy does: CompareConfig.Ceilings.
func ParseCeilings(scopes []string) ([]CompareBy, error) {
	var out []CompareBy
	for _, s := range scopes {
		c, err := ParseCompareBy(s)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
