package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rleBomb is a checkpoint file (format version 1) with a sound prefix and
// CRC-32C whose zstd frame, written block by block, holds head as a raw
// block and then zero bytes up to rawLen as 128 KiB RLE blocks of 4 bytes
// each: 1 GiB in about 33 KB (issue 34, cause 1).
func rleBomb(head []byte, rawLen int) []byte {
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 13 << 3} // magic; no size, no checksum; window 8 MiB
	block := func(typ, size int, last bool) {
		h := uint32(size)<<3 | uint32(typ)<<1
		if last {
			h |= 1
		}
		frame = append(frame, byte(h), byte(h>>8), byte(h>>16))
	}
	rest := rawLen - len(head)
	block(0, len(head), rest == 0)
	frame = append(frame, head...)
	for rest > 0 {
		n := min(rest, 128<<10)
		rest -= n
		block(1, n, rest == 0)
		frame = append(frame, 0)
	}
	b := []byte("MPDFCKPT")
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(rawLen))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(frame)))
	b = append(b, frame...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// TestCheckpointBombBoundedMemory gives a 33 KB checkpoint that decompresses
// to 1 GiB behind a garbage header to every command that reads a policy or
// a checkpoint, each a real process: inspect, eval, train --init,
// train --resume and serve. Each must refuse it as corrupt with a peak RSS
// under 100 MiB (issue 34, cause 1: ~1,050 MB and up to 9 s before).
func TestCheckpointBombBoundedMemory(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.mpdf")
	head := append(binary.LittleEndian.AppendUint32(nil, 2), "{}"...)
	b := rleBomb(head, 1<<30)
	if err := os.WriteFile(bomb, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("bomb: %d bytes on disk, 1 GiB decompressed", len(b))
	runDir := filepath.Join(dir, "run")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "ckpt-00000001.mpdf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"inspect", bomb},
		{"eval", "--policy", bomb, "--no-baselines", "--tasks", "4"},
		{"train", "--init", bomb, "--out", filepath.Join(dir, "init"), "-q"},
		{"train", "--resume", "--out", runDir, "-q"},
		{"serve", "--policy", bomb, "--addr", "127.0.0.1:0"},
	} {
		cmd, peak := measured(t, bin, args...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			<-done
			t.Fatalf("mpdf %s: still running after 2 minutes\n%s", strings.Join(args, " "), out.String())
		}
		rssMiB := peak()
		t.Logf("mpdf %s: peak RSS %d MiB; %s", args[0], rssMiB, strings.TrimSpace(out.String()))
		if err == nil {
			t.Errorf("mpdf %s: accepted the bomb", strings.Join(args, " "))
		}
		if !strings.Contains(out.String(), "corrupt") {
			t.Errorf("mpdf %s: %q, want it to say the file is corrupt", strings.Join(args, " "), out.String())
		}
		if rssMiB > 100 {
			t.Errorf("mpdf %s: peak RSS %d MiB, want under 100 MiB", strings.Join(args, " "), rssMiB)
		}
	}
}
