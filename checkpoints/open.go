package checkpoints

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens path for reading only if it is a regular file: the
// one rule for every policy file read (Load, LoadSafetensors,
// LoadSafetensorsAny; so inspect, serve's start and reload, --resume,
// --init, eval). It opens without blocking (O_NONBLOCK: opening a FIFO
// for reading otherwise waits for a writer, forever, and mpdf serve then
// ignored SIGTERM) and checks the open file, not the name, so a file
// swapped for a FIFO or device between a check and the open is refused
// too. O_NONBLOCK does not change reads of a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, describeMode(st.Mode()))
	}
	return f, nil
}

// describeMode names a file type that is not a regular file.
func describeMode(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}
