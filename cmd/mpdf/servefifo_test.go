//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeRefusesAFIFOPolicy: mpdf serve --policy on a named pipe exits
// at once saying it is not a regular file; it used to wait forever in the
// open for a writer, ignoring SIGTERM. A real process: the case is about
// one that does not end.
func TestServeRefusesAFIFOPolicy(t *testing.T) {
	bin := mpdfBinary(t)
	fifo := filepath.Join(t.TempDir(), "p.mpdf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "serve", "--policy", fifo, "--addr", "127.0.0.1:0")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(out.String(), "not a regular file (a named pipe)") {
			t.Errorf("exit %v, output %q; want an error saying the policy is not a regular file", err, out.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			t.Errorf("serve waited on the FIFO until SIGTERM; output %q", out.String())
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("serve waited on the FIFO and ignored SIGTERM; output %q", out.String())
		}
	}
	// The FIFO is no longer opened for reading by anyone: a writer's
	// non-blocking open fails (ENXIO) rather than find a reader left behind.
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
		t.Error("a reader is still open on the FIFO")
	}
}
