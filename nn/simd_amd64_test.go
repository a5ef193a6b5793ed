//go:build !noasm && gc

package nn

import (
	"testing"
	"unsafe"
)

// The generated loss kernel reads lossCols by offset: 13 columns of tileRows
// float32, then the scratch vectors.
func TestLossColsLayout(t *testing.T) {
	var c lossCols
	if got, want := unsafe.Offsetof(c.tmp), uintptr(13*tileRows*4); got != want {
		t.Errorf("lossCols.tmp at offset %d, the assembly expects %d", got, want)
	}
	if got, want := unsafe.Offsetof(c.g0), uintptr(10*tileRows*4); got != want {
		t.Errorf("lossCols.g0 at offset %d, the assembly expects %d", got, want)
	}
}
