package view

import "fmt"

// sizePair writes a page's size and its budget each in the unit that shows
// it (bytes under 10 kB, kB under 10 MB, MB above), and both in bytes when
// the rounded texts would read alike: "0.0 MB, over its budget of 0.0 MB"
// said nothing.
func sizePair(size, budget int) (string, string) {
	a, b := sizeText(size), sizeText(budget)
	if a == b {
		return fmt.Sprintf("%d bytes", size), fmt.Sprintf("%d bytes", budget)
	}
	return a, b
}

func sizeText(n int) string {
	switch {
	case n < 10_000:
		return fmt.Sprintf("%d bytes", n)
	case n < 10_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
