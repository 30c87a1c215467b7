// Package stats is the file an instance writes its processing counters to
// and the worker reads for function status and stats: the FWORKER_STATS_FILE
// of the instance contract (worker/runtime/CONTRACT.md). It has no
// dependencies, so both sides can use it.
//
// The instance rewrites the whole file atomically (temp file + rename);
// readers therefore always see one complete snapshot.
package stats

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Exception is one recent failure, as Pulsar reports it.
type Exception struct {
	ExceptionString string `json:"exceptionString"`
	TimestampMs     int64  `json:"timestampMs"`
}

// Window holds the counters of one period (total since start, or the last
// minute), with Pulsar's JSON names.
type Window struct {
	ReceivedTotal              int64   `json:"receivedTotal"`
	ProcessedSuccessfullyTotal int64   `json:"processedSuccessfullyTotal"`
	SystemExceptionsTotal      int64   `json:"systemExceptionsTotal"`
	UserExceptionsTotal        int64   `json:"userExceptionsTotal"`
	AvgProcessLatency          float64 `json:"avgProcessLatency"` // milliseconds
}

// File is the whole stats file of one instance run.
type File struct {
	Window
	OneMin                 Window             `json:"oneMin"`
	LastInvocation         int64              `json:"lastInvocation"` // unix ms
	LatestUserExceptions   []Exception        `json:"latestUserExceptions"`
	LatestSystemExceptions []Exception        `json:"latestSystemExceptions"`
	UserMetrics            map[string]float64 `json:"userMetrics"`
}

// Read loads a stats file. A missing file is not an error: the instance has
// not written one (yet), and every counter is zero.
func Read(path string) (File, error) {
	var f File
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal(data, &f)
}

// Write replaces the file at path atomically.
func Write(path string, f File) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".stats-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
