package nn

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseHidden reads hidden layer sizes written as FormatHidden writes them,
// positive integers separated by commas ("64,64").
func ParseHidden(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("hidden sizes %q: want positive integers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// FormatHidden writes hidden layer sizes as ParseHidden reads them.
func FormatHidden(sizes []int) string {
	s := make([]string, len(sizes))
	for i, v := range sizes {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}
