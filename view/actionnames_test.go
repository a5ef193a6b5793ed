package view

import (
	"strings"
	"testing"
)

// TestPageJSHasActionNames holds the page's script to metapolicy's list:
// the names are written in where page.js reads them, as the JavaScript
// array the page spelled by hand before (so the page's bytes are unchanged).
func TestPageJSHasActionNames(t *testing.T) {
	if strings.Contains(pageJS, "ACTION_NAMES") {
		t.Fatal("page.js: ACTION_NAMES left unreplaced")
	}
	if !strings.Contains(pageJS, `ACTIONS = ["persist", "refine", "concede"];`) {
		t.Fatal("page.js: the action names were not written in")
	}
}
