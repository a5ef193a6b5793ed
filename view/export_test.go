package view

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
)

// Unpacked is a page's packed questions read back (pack.go), for tests.
type Unpacked struct {
	Policies, Models, Kinds, Sources, Confs []string
	Rule                                    []bool
	Rows                                    []URow
	Texts                                   []string
}

type URow struct {
	Task     string       `json:"t"`
	Gold     string       `json:"g"`
	Model    int          `json:"m"`
	Kind     int          `json:"k"`
	Source   int          `json:"s"`
	Text     int          `json:"q"`
	Opening  string       `json:"o"`
	Total    int64        `json:"tok"`
	Disagree bool         `json:"d"`
	Correct  []int        `json:"c"`
	Scored   []int        `json:"n"`
	Tokens   []int64      `json:"pt"`
	Cols     [][]UEpisode `json:"e"`
}

type UEpisode struct {
	ID     string   `json:"id"`
	Conf   int      `json:"c"`
	Rounds []URound `json:"r"`
}

type URound struct {
	Team   string  `json:"a"`
	Right  int     `json:"ok"`
	Tokens int     `json:"tok"`
	Turns  [][]any `json:"u"`
}

// Islands are the raw contents of a page's data islands, by id.
func Islands(page []byte) map[string]string {
	out := map[string]string{}
	for _, m := range islandRE.FindAllSubmatch(page, -1) {
		out[string(m[1])] = string(m[2])
	}
	return out
}

var islandRE = regexp.MustCompile(`(?s)<script type="application/json" id="([a-z]+)">(.*?)</script>`)

// Unpack reads a page's questions and texts back.
func Unpack(page []byte) (*Unpacked, error) {
	is := Islands(page)
	var u Unpacked
	if err := unpackIsland(is["data"], &u); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if err := unpackIsland(is["texts"], &u.Texts); err != nil {
		return nil, fmt.Errorf("texts: %w", err)
	}
	return &u, nil
}

func unpackIsland(island string, v any) error {
	var s string
	if err := json.Unmarshal([]byte(island), &s); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	z, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return json.NewDecoder(z).Decode(v)
}
