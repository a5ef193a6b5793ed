package view

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// The page carries its questions as two JSON documents, the rows (model)
// and the texts, each gzip-compressed and base64-encoded in a JSON data
// island; the page's script unpacks them (DecompressionStream) and builds
// only the visible page of rows. Compression is what makes the large case
// fit its budget: the texts of a replay repeat across rounds and
// policies, and JSON's repeated keys cost nothing once compressed
// (doc.go has the sizes). Base64 has no character HTML or a script
// element could read as markup, and json.Marshal escapes <, > and & in
// every string, so neither "</script>" nor "<!--" can appear in the
// page's data; the script puts every text into the page as text
// (textContent), never as markup.

// pack is m's rows and texts, each as JSON, gzipped and base64-encoded.
func (m *model) pack() (rows, texts string, err error) {
	r, err := json.Marshal(m)
	if err != nil {
		return "", "", fmt.Errorf("view: %w", err)
	}
	t, err := json.Marshal(m.texts)
	if err != nil {
		return "", "", fmt.Errorf("view: %w", err)
	}
	if m.texts == nil {
		t = []byte("[]")
	}
	return zip64(r), zip64(t), nil
}

// zip64 is b gzipped (no name, no time: the same bytes every run) and
// base64-encoded.
func zip64(b []byte) string {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
	z.Write(b)                                              // a bytes.Buffer does not fail
	z.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// appendString appends s as a JSON string, <, > and & escaped.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
