package trainer

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/nn"
)

// trainingCopies is how many float32 arrays of a network's parameters a
// training run holds at once: the policy, its frozen reference, Adam's two
// moments, the gradient and the backend's scratch. A run's memory grows
// with the network as 4 bytes × parameters × trainingCopies, known from the
// sizes before the first allocation.
const trainingCopies = 6

// CheckNetworkMemory refuses a network too large for the memory this
// process can have: its parameter memory (TrainingBytes) over what the
// system reports available (MemAvailable, and a cgroup's limit less its
// use). hidden 65536,65536 passed 3 GB in 8 s before the kernel or the user
// stopped it (issue 34); now it is refused at once, with its size. Where
// the available memory is unknown (not Linux) nothing is refused.
func CheckNetworkMemory(sizes []int, attn int) error {
	need := TrainingBytes(sizes, attn)
	avail, ok := availableMemory()
	if !ok || need <= float64(avail) {
		return nil
	}
	return fmt.Errorf("trainer: a network of sizes %v has %.3g parameters: training holds about %s (%d copies of 4 bytes each: policy, reference, Adam's moments, gradient, scratch), more than the %s of memory available",
		sizes, need/4/trainingCopies, bytesText(need), trainingCopies, bytesText(float64(avail)))
}

// TrainingBytes is the parameter memory a training run of the network
// sizes (with an attention front of width attn, 0 for none) holds:
// 4 bytes × parameters × trainingCopies, in float64 so that no size
// overflows it.
func TrainingBytes(sizes []int, attn int) float64 {
	p := float64(nn.AttnParams(attn))
	for i := 1; i < len(sizes); i++ {
		p += float64(sizes[i-1])*float64(sizes[i]) + float64(sizes[i])
	}
	return 4 * trainingCopies * p
}

func bytesText(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", b/(1<<10))
}

// availableMemory is the memory this process may still take: Linux's
// MemAvailable, less where a cgroup (v2) limit leaves less.
func availableMemory() (uint64, bool) {
	avail, ok := memAvailable()
	if !ok {
		return 0, false
	}
	if limit, err := readUint("/sys/fs/cgroup/memory.max"); err == nil {
		if used, err := readUint("/sys/fs/cgroup/memory.current"); err == nil && used <= limit {
			avail = min(avail, limit-used)
		}
	}
	return avail, true
}

func memAvailable() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// readUint reads a file holding one number ("max" is an error: no limit).
func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}
