package function

import (
	"sync"
	"time"

	"github.com/fworker/fworker/sdk/stats"
)

const keepExceptions = 10

type bucket struct {
	sec                          int64
	received, ok, sysExc, usrExc int64
	latencyMs                    float64
}

// collector counts what the instance processed: in total and over the last
// minute (60 one-second buckets). Run updates it; the stats writer reads it.
type collector struct {
	mu       sync.Mutex
	now      func() time.Time
	total    bucket
	minute   [60]bucket
	last     int64
	usr, sys []stats.Exception
}

func newCollector(now func() time.Time) *collector { return &collector{now: now} }

func (c *collector) slot(t time.Time) *bucket {
	sec := t.Unix()
	b := &c.minute[sec%60]
	if b.sec != sec {
		*b = bucket{sec: sec}
	}
	return b
}

// record notes one input: its handling time and how it ended (a user error
// from the handler, a system error writing the output, or success).
func (c *collector) record(start time.Time, took time.Duration, userErr, sysErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.slot(start)
	ms := float64(took) / float64(time.Millisecond)
	c.last = start.UnixMilli()
	for _, x := range []*bucket{&c.total, b} {
		x.received++
		switch {
		case userErr != nil:
			x.usrExc++
		case sysErr != nil:
			x.sysExc++
		default:
			x.ok++
			x.latencyMs += ms
		}
	}
	keep := func(list []stats.Exception, err error) []stats.Exception {
		list = append(list, stats.Exception{ExceptionString: err.Error(), TimestampMs: start.UnixMilli()})
		if len(list) > keepExceptions {
			list = list[len(list)-keepExceptions:]
		}
		return list
	}
	if userErr != nil {
		c.usr = keep(c.usr, userErr)
	}
	if sysErr != nil {
		c.sys = keep(c.sys, sysErr)
	}
}

func window(b bucket) stats.Window {
	w := stats.Window{ReceivedTotal: b.received, ProcessedSuccessfullyTotal: b.ok,
		SystemExceptionsTotal: b.sysExc, UserExceptionsTotal: b.usrExc}
	if b.ok > 0 {
		w.AvgProcessLatency = b.latencyMs / float64(b.ok)
	}
	return w
}

func (c *collector) snapshot() stats.File {
	c.mu.Lock()
	defer c.mu.Unlock()
	var min bucket
	cutoff := c.now().Unix() - 60
	for _, b := range c.minute {
		if b.sec > cutoff {
			min.received += b.received
			min.ok += b.ok
			min.sysExc += b.sysExc
			min.usrExc += b.usrExc
			min.latencyMs += b.latencyMs
		}
	}
	return stats.File{
		Window: window(c.total), OneMin: window(min), LastInvocation: c.last,
		LatestUserExceptions:   append([]stats.Exception{}, c.usr...),
		LatestSystemExceptions: append([]stats.Exception{}, c.sys...),
		UserMetrics:            map[string]float64{},
	}
}
