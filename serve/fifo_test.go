//go:build unix

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPolicyMustBeRegular: a policy path that is a named pipe is refused at
// New and at Reload, at once (it used to block in the open until a writer
// came, forever), and after a failed reload the previous policy keeps
// serving.
func TestPolicyMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.mpdf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A writer unblocks an open that waits, so that the test ends on a
	// build without the rule.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	within := func(what string, f func() error) error {
		t.Helper()
		errc := make(chan error, 1)
		go func() { errc <- f() }()
		select {
		case err := <-errc:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("%s blocked on a FIFO", what)
			return nil
		}
	}
	err := within("New", func() error { _, err := New(Config{PolicyPath: fifo}); return err })
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("New on a FIFO: %v", err)
	}

	s, hs, path := newTestServer(t, Config{})
	if err := os.Rename(fifo, path); err != nil {
		t.Fatal(err)
	}
	fifo = path
	err = within("Reload", func() error { _, err := s.Reload(); return err })
	if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), "previous policy keeps serving") {
		t.Errorf("Reload of a FIFO: %v", err)
	}
	if code, b := post(t, hs.URL+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 200 {
		t.Errorf("decide after the failed reload: %d %s", code, b)
	}
}
