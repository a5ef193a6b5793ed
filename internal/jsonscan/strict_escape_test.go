package jsonscan

import (
	"bytes"
	"fmt"
	"testing"
)

// escapes is a document whose one string is n escaped backslashes: the
// shape that made the string scan quadratic (every escape rescanned the
// rest of the string for its closing quote).
func escapes(n int) []byte {
	return []byte(`{"text":"` + string(bytes.Repeat([]byte(`\\`), n)) + `"}`)
}

func TestCheckEscapesAndMaxString(t *testing.T) {
	doc := escapes(1 << 16)
	st, o := Check(doc, &Rules{})
	if o != nil {
		t.Fatalf("offence in a valid document: %+v", o)
	}
	if want := 4 + 2<<16; st.StringBytes != want {
		t.Errorf("string bytes %d, want %d", st.StringBytes, want)
	}
	_, o = Check(doc, &Rules{MaxString: 1 << 16})
	if o == nil || o.Problem != TooLong || o.Len != 2<<16 || len(o.Path) != 1 || o.Path[0].Key != "text" {
		t.Errorf("a string over MaxString: %+v", o)
	}
}

// BenchmarkCheckEscapes doubles the string: ns/op must double too.
func BenchmarkCheckEscapes(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 17, 1 << 18} {
		doc := escapes(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				Check(doc, &Rules{})
			}
		})
	}
}
