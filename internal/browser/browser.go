// Package browser drives a headless Chromium for the tests of the HTML
// pages mpdf writes (view.html, report.html): it opens a page, collects
// the console errors, uncaught exceptions and failed loads, evaluates
// expressions in it and takes PNG screenshots.
//
// It speaks the DevTools protocol over --remote-debugging-pipe (JSON
// messages ended by a NUL byte on file descriptors 3 and 4), so it needs
// no websocket and no third-party module; only tests import it.
//
// The pages' test hook is two element ids, kept by every page: an input
// "q" that filters the page's list as the user types, and an element
// "count" whose text starts with the number of rows shown ("12 of 40
// questions").
package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Flags are Chromium's flags: headless as root in a container, and no
// connection of its own (this machine's network is closed; Chromium's
// background fetches would fail noisily).
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
	"--remote-debugging-pipe",
}

// CallTimeout bounds every protocol call and every page load: a hung
// browser fails the test instead of stalling it.
const CallTimeout = 60 * time.Second

// Browser is a running Chromium.
type Browser struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	stderr *limitedWriter
	done   chan struct{} // closed when the reader stops

	mu      sync.Mutex
	next    int
	pending map[int]chan message
	pages   map[string]*Page // by session id
	readErr error
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start runs the Chromium at path with a fresh profile in userDataDir.
func Start(path, userDataDir string) (*Browser, error) {
	toChrome, ourW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ourR, fromChrome, err := os.Pipe()
	if err != nil {
		toChrome.Close()
		ourW.Close()
		return nil, err
	}
	args := append(append([]string{}, Flags...), "--user-data-dir="+userDataDir, "--window-size=1280,900", "about:blank")
	b := &Browser{cmd: exec.Command(path, args...), w: ourW, done: make(chan struct{}),
		pending: map[int]chan message{}, pages: map[string]*Page{}}
	b.cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fds 3 and 4
	b.stderr = &limitedWriter{max: 64 << 10}
	b.cmd.Stderr = b.stderr
	if err := b.cmd.Start(); err != nil {
		toChrome.Close()
		fromChrome.Close()
		ourW.Close()
		ourR.Close()
		return nil, fmt.Errorf("browser: start %s: %w", path, err)
	}
	toChrome.Close()
	fromChrome.Close()
	go b.read(ourR)
	return b, nil
}

// limitedWriter keeps the first max bytes of Chromium's stderr, for the
// error of a browser that dies.
type limitedWriter struct {
	mu  sync.Mutex
	b   strings.Builder
	max int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.max - l.b.Len(); n > 0 {
		l.b.Write(p[:min(n, len(p))])
	}
	return len(p), nil
}

func (l *limitedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// read dispatches Chromium's messages: replies to their callers, events
// to their page.
func (b *Browser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("browser: the pipe from Chromium closed (%v); its stderr: %s", err, b.stderr.String())
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue // not ours to judge; the call it answers times out
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else if p := b.pages[m.SessionID]; p != nil {
			p.event(m)
		}
		b.mu.Unlock()
	}
}

// call sends one command (to a page's session when session is set) and
// decodes its result into out (when not nil).
func (b *Browser) call(session, method string, params, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		err := b.readErr
		b.mu.Unlock()
		return err
	}
	b.next++
	id := b.next
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	req := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		req["sessionId"] = session
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("browser: %s: %w", method, err)
	}
	timer := time.NewTimer(CallTimeout)
	defer timer.Stop()
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("browser: %s: %s (code %d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.done:
		b.mu.Lock()
		defer b.mu.Unlock()
		return fmt.Errorf("browser: %s: %w", method, b.readErr)
	case <-timer.C:
		return fmt.Errorf("browser: %s: no answer in %s", method, CallTimeout)
	}
}

// Close asks Chromium to quit, and kills it if it has not within a few
// seconds.
func (b *Browser) Close() error {
	_ = b.call("", "Browser.close", nil, nil)
	b.w.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
	return nil
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
	target  string
	loaded  chan struct{}
	// problems are the console errors, uncaught exceptions and failed
	// loads the page reported (guarded by b.mu).
	problems []string
}

// NewPage opens a blank tab of width × height CSS pixels.
func (b *Browser) NewPage(width, height int) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID, target: target.TargetID, loaded: make(chan struct{}, 1)}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := b.call(p.session, m, nil, nil); err != nil {
			return nil, err
		}
	}
	err := b.call(p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	return p, err
}

// Close closes the tab. A test that opens a page beside another closes
// it when done: Chromium draws no frame for a tab left behind a newer one,
// and a screenshot of it waits for one (CallTimeout).
func (p *Page) Close() error {
	err := p.b.call("", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
	p.b.mu.Lock()
	delete(p.b.pages, p.session)
	p.b.mu.Unlock()
	return err
}

// event records what the page reports (called with b.mu held).
func (p *Page) event(m message) {
	switch m.Method {
	case "Page.loadEventFired":
		select {
		case p.loaded <- struct{}{}:
		default:
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Line      int    `json:"lineNumber"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Params, &e)
		p.problems = append(p.problems, fmt.Sprintf("uncaught exception, line %d: %s %s", e.Details.Line+1, e.Details.Text, e.Details.Exception.Description))
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(m.Params, &e)
		if e.Type == "error" || e.Type == "assert" || e.Type == "warning" {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, fmt.Sprint(a.Value)+a.Description)
			}
			p.problems = append(p.problems, "console."+e.Type+": "+strings.Join(parts, " "))
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		json.Unmarshal(m.Params, &e)
		if e.Entry.Level == "error" || e.Entry.Level == "warning" {
			p.problems = append(p.problems, fmt.Sprintf("%s %s: %s %s", e.Entry.Source, e.Entry.Level, e.Entry.Text, e.Entry.URL))
		}
	}
}

// Open loads url and waits for its load event. Problems then holds only
// this page's.
func (p *Page) Open(url string) error {
	p.b.mu.Lock()
	p.problems = nil
	p.b.mu.Unlock()
	select { // a load event of the page before is not this one's
	case <-p.loaded:
	default:
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.b.call(p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("browser: open %s: %s", url, nav.ErrorText)
	}
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	select {
	case <-p.loaded:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("browser: %s did not finish loading in %s", url, CallTimeout)
	}
}

// Problems returns the console errors and warnings, uncaught exceptions
// and failed loads the page has reported so far.
func (p *Page) Problems() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value, which must be JSON, into out.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.call(p.session, "Runtime.evaluate",
		map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("browser: %s: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return errors.New("browser: " + expr + ": no value")
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Hover moves the mouse to (x, y), in CSS pixels of the viewport, as a
// user's pointer would: the page gets its mouse events.
func (p *Page) Hover(x, y float64) error {
	return p.b.call(p.session, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": x, "y": y}, nil)
}

// MaxShotHeight caps a whole-page screenshot's height in CSS pixels (a
// long list would make a huge PNG): the page's top part is kept.
const MaxShotHeight = 8000

// Screenshot returns the viewport as a PNG; with full, the whole page (up
// to MaxShotHeight).
func (p *Page) Screenshot(full bool) ([]byte, error) {
	params := map[string]any{"format": "png"}
	if full {
		var m struct {
			Content struct {
				Width  float64 `json:"width"`
				Height float64 `json:"height"`
			} `json:"cssContentSize"`
		}
		if err := p.b.call(p.session, "Page.getLayoutMetrics", nil, &m); err != nil {
			return nil, err
		}
		params["captureBeyondViewport"] = true
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": m.Content.Width, "height": min(m.Content.Height, MaxShotHeight), "scale": 1}
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := p.b.call(p.session, "Page.captureScreenshot", params, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}
