package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// JSON in and out: the strict decoder (a decide request's reference path;
// its errors name the field), and the writer of every JSON answer but a
// decision, which encode.go writes by hand.

// decodeJSON decodes one JSON object from b into v, strictly: unknown
// fields and trailing data are errors. The error names the field when the
// decoder says which.
func decodeJSON(b []byte, v any) *ErrorBody {
	if len(bytes.TrimSpace(b)) == 0 {
		return &ErrorBody{Kind: "bad_json", Error: "body: empty, want a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return &ErrorBody{Kind: "bad_json", Error: fmt.Sprintf("body: offset %d: data after the JSON object", dec.InputOffset())}
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &ErrorBody{Kind: "bad_json", Error: fmt.Sprintf("body: offset %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))}
	case errors.As(err, &typ):
		field := pathAtOffset(b, typ.Offset)
		if field == "" {
			return &ErrorBody{Kind: "bad_json", Error: fmt.Sprintf("body: %s, want a JSON object", typ.Value)}
		}
		if m := jsonscan.TypeMismatch(typ.Value, typ.Type); m != "" {
			return &ErrorBody{Kind: "invalid", Field: field, Error: field + ": " + clipLiteral(m, strings.TrimPrefix(typ.Value, "number "))}
		}
		return &ErrorBody{Kind: "invalid", Field: field, Error: fmt.Sprintf("%s: %s, want %s", field, clip(typ.Value), jsonscan.Want(typ.Type))}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ErrorBody{Kind: "bad_json", Error: "body: the JSON ends early"}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		field := pathOfKey(b, name)
		if field == "" {
			field = clip(name)
		}
		return &ErrorBody{Kind: "invalid", Field: field, Error: field + ": unknown field"}
	}
	return &ErrorBody{Kind: "bad_json", Error: "body: " + strings.TrimPrefix(err.Error(), "json: ")}
}

func (s *Server) putBuf(b *bytes.Buffer) {
	if b.Cap() <= 4<<20 { // keep the pool from pinning rare huge buffers
		s.bufs.Put(b)
	}
}

// writeJSON writes v with status code.
func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	buf := s.bufs.Get().(*bytes.Buffer)
	defer s.putBuf(buf)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		s.metrics.errors.WithLabelValues("internal").Inc()
		http.Error(w, `{"error":"encoding the response failed","kind":"internal"}`, http.StatusInternalServerError)
		return
	}
	// A fresh write timeout: an answer written late (a 503 at the request
	// timeout, a 408 at the read timeout, on a loaded machine) still goes
	// out with its status rather than be cut by the deadline net/http set
	// when the headers were read.
	setWriteDeadline(w, time.Now().Add(s.cfg.WriteTimeout))
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// writeError writes an error body and counts it by kind.
func (s *Server) writeError(w http.ResponseWriter, code int, eb *ErrorBody) {
	clipErrorBody(eb)
	s.metrics.errors.WithLabelValues(eb.Kind).Inc()
	s.writeJSON(w, code, eb)
}
