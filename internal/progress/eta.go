package progress

import (
	"fmt"
	"math"
	"time"
)

// The ETA of a bar with a known total: the work left over a smoothed rate
// of units per second, shown once enough is done for the rate to mean
// something. Work such as training steps or LLM calls runs at an uneven
// pace (a slow first batch, a server that stalls); the mean since the
// start lags a change of pace for the rest of the run, the last interval
// alone jumps with every batch. An exponential average over the last
// half minute or so follows a change without jumping.
const (
	// etaSample is the least time between two rate samples: units that
	// land together (a batch of workers) make one sample.
	etaSample = time.Second
	// etaTau is the smoothing's time constant: a sample's weight halves
	// every etaTau·ln 2.
	etaTau = 30 * time.Second
	// etaMinShare and etaMinTime are the least progress before an ETA is
	// shown: 5 % of the total and 3 s of work.
	etaMinShare = 0.05
	etaMinTime  = 3 * time.Second
)

// eta smooths a bar's rate.
type eta struct {
	start   time.Time
	at      time.Time // the last sample
	atDone  int
	rate    float64 // units per second, smoothed; 0 before the first sample
	hasRate bool
}

// observe takes done units at now into the smoothed rate.
func (e *eta) observe(now time.Time, done int) {
	dt := now.Sub(e.at)
	if dt < etaSample || done < e.atDone {
		if done < e.atDone { // the bar went back (a new total): start over
			e.at, e.atDone, e.hasRate = now, done, false
		}
		return
	}
	r := float64(done-e.atDone) / dt.Seconds()
	if !e.hasRate {
		// The first sample is the mean since the start.
		e.rate, e.hasRate = float64(done)/now.Sub(e.start).Seconds(), true
	} else {
		a := 1 - math.Exp(-dt.Seconds()/etaTau.Seconds())
		e.rate += a * (r - e.rate)
	}
	e.at, e.atDone = now, done
}

// left is the time the remaining work should take, and whether there is
// enough progress to say.
func (e *eta) left(now time.Time, done, total int) (time.Duration, bool) {
	if total <= 0 || done >= total || !e.hasRate || e.rate <= 0 {
		return 0, false
	}
	if float64(done) < etaMinShare*float64(total) || now.Sub(e.start) < etaMinTime {
		return 0, false
	}
	s := float64(total-done) / e.rate
	if s > float64(math.MaxInt64/int64(time.Second)) {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// etaText prints a time left coarsely, as an ETA deserves: "40s",
// "3m10s", "2h05m".
func etaText(d time.Duration) string {
	s := int64(math.Round(d.Seconds()))
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		s = (s + 5) / 10 * 10
		if s == 3600 {
			return "1h00m"
		}
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	m := (s + 30) / 60
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}
