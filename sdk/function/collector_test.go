package function

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/fworker/fworker/sdk/stats"
)

func TestCollectorWindowsAndFile(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	c := newCollector(func() time.Time { return now })
	c.record(now.Add(-2*time.Minute), 10*time.Millisecond, nil, nil) // outside the minute
	c.record(now, 20*time.Millisecond, nil, nil)
	c.record(now, 5*time.Millisecond, errors.New("bad input"), nil)
	c.record(now, 5*time.Millisecond, nil, errors.New("produce failed"))
	for i := 0; i < 15; i++ {
		c.record(now, time.Millisecond, errors.New("again"), nil)
	}
	f := c.snapshot()
	if f.ReceivedTotal != 19 || f.ProcessedSuccessfullyTotal != 2 || f.UserExceptionsTotal != 16 || f.SystemExceptionsTotal != 1 {
		t.Fatalf("totals %+v", f.Window)
	}
	if f.AvgProcessLatency != 15 {
		t.Fatalf("avg latency %v, want 15 ms", f.AvgProcessLatency)
	}
	if f.OneMin.ReceivedTotal != 18 || f.OneMin.ProcessedSuccessfullyTotal != 1 || f.OneMin.AvgProcessLatency != 20 {
		t.Fatalf("one minute %+v", f.OneMin)
	}
	if len(f.LatestUserExceptions) != keepExceptions || f.LatestSystemExceptions[0].ExceptionString != "produce failed" {
		t.Fatalf("exceptions %v %v", f.LatestUserExceptions, f.LatestSystemExceptions)
	}
	if f.LastInvocation != now.UnixMilli() {
		t.Fatalf("last invocation %d", f.LastInvocation)
	}
	path := filepath.Join(t.TempDir(), "stats.json")
	if err := stats.Write(path, f); err != nil {
		t.Fatal(err)
	}
	back, err := stats.Read(path)
	if err != nil || back.ReceivedTotal != 19 || back.OneMin.ReceivedTotal != 18 {
		t.Fatalf("round trip %+v %v", back, err)
	}
	if missing, err := stats.Read(filepath.Join(t.TempDir(), "none.json")); err != nil || missing.ReceivedTotal != 0 {
		t.Fatalf("missing file: %+v %v", missing, err)
	}
}
